package io.portcullis.relay.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LoopsTest {
    private Loops loops;
    private EventLoop first;
    private EventLoop second;
    private final List<Channel> channels = new ArrayList<>();

    @BeforeEach
    void start() {
        loops = new Loops(2, LocalIoHandler.newFactory());
        List<EventLoop> all = new ArrayList<>();
        loops.forEach(executor -> all.add((EventLoop) executor));
        first = all.get(0);
        second = all.get(1);
    }

    @AfterEach
    void stop() throws InterruptedException {
        channels.forEach(Channel::close);
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
    }

    /** {@code count} real channels registered on {@code loop}. */
    private void carry(EventLoop loop, int count) throws InterruptedException {
        for (int i = 0; i < count; i++) {
            Channel channel = new LocalServerChannel();
            loop.register(channel).sync();
            channels.add(channel);
        }
    }

    private EventLoop chosenOn(EventLoop loop) throws Exception {
        return loop.submit(() -> loops.next()).get(5, TimeUnit.SECONDS);
    }

    /** The asking loop keeps a new channel while it carries at most SLACK (4) more than the other. */
    @ParameterizedTest(name = "asking loop carries {0}, the other {1} -> the asking loop: {2}")
    @CsvSource({"0, 0, true", "4, 0, true", "5, 0, false", "7, 3, true", "8, 3, false", "0, 6, true"})
    void aNewChannelStaysOnTheAskingLoopUnlessItIsFarBusier(int asking, int other, boolean stays) throws Exception {
        carry(first, asking);
        carry(second, other);

        EventLoop chosen = chosenOn(first);

        assertSame(stays ? first : second, chosen);
    }

    @ParameterizedTest(name = "loops carry {0} and {1} -> loop {2}")
    @CsvSource({"0, 0, 0", "3, 1, 1", "1, 3, 0", "2, 2, 0"})
    void anotherThreadGetsTheLeastLoadedLoop(int onFirst, int onSecond, int expected) throws InterruptedException {
        carry(first, onFirst);
        carry(second, onSecond);

        assertSame(expected == 0 ? first : second, loops.next());
    }

    @Test
    void aClosedChannelNoLongerCounts() throws Exception {
        carry(first, 6);
        assertSame(second, chosenOn(first));

        for (Channel channel : channels) {
            channel.close().sync();
        }

        assertSame(first, chosenOn(first));
        assertEquals(2, loops.executorCount());
    }
}
