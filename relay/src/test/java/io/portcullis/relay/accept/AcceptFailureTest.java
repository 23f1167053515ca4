package io.portcullis.relay.accept;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.Errors;
import io.portcullis.relay.transport.Transport;
import io.portcullis.wire.Handoff;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** SPEC R4: what a failed accept on a handed-over socket means, and what the socket's pipeline does with it. */
class AcceptFailureTest {
    private static final Handoff.Socket PROXY =
            new Handoff.Socket(Handoff.Kind.PROXY, new InetSocketAddress(InetAddress.getLoopbackAddress(), 39080));

    /** Netty's native errors need its native library, which the relay's epoll transport loads. */
    @BeforeAll
    static void loadNetty() {
        Epoll.ensureAvailability();
    }

    @ParameterizedTest(name = "{0} ({1}) -> {2}")
    @CsvSource({
        "EINVAL, 22, BROKEN",
        "EBADF, 9, BROKEN",
        "ENOTSOCK, 88, BROKEN",
        "EFAULT, 14, BROKEN",
        "EINTR, 4, CONNECTION",
        "EAGAIN, 11, CONNECTION",
        "ECONNABORTED, 103, CONNECTION",
        "EPROTO, 71, CONNECTION",
        "EPERM, 1, CONNECTION",
        "ENETUNREACH, 101, CONNECTION",
        "EHOSTUNREACH, 113, CONNECTION",
        "ETIMEDOUT, 110, CONNECTION",
        "EMFILE, 24, RESOURCES",
        "ENFILE, 23, RESOURCES",
        "ENOBUFS, 105, RESOURCES",
        "ENOMEM, 12, RESOURCES",
    })
    void anErrorNumberMeans(String name, int errno, AcceptFailure meaning) {
        assertEquals(meaning, AcceptFailure.of(errno));
        assertEquals(meaning, AcceptFailure.of(new Errors.NativeIoException("accept", -errno)));
    }

    @Test
    void anErrorWithoutANumberIsBroken() {
        assertEquals(AcceptFailure.BROKEN, AcceptFailure.of(new ClosedChannelException()));
        assertEquals(AcceptFailure.BROKEN, AcceptFailure.of(new IOException("accept")));
        assertEquals(AcceptFailure.BROKEN, AcceptFailure.of(new IllegalStateException("a bug")));
    }

    @Test
    void aShortageOfDescriptorsPausesTheSocketAndKeepsIt() {
        EmbeddedChannel server = new EmbeddedChannel(new AcceptFailures("studio", PROXY));
        server.freezeTime();
        server.pipeline().fireExceptionCaught(new Errors.NativeIoException("accept", -24));

        assertTrue(server.isOpen());
        assertFalse(server.config().isAutoRead(), "no accept until the pause is over");
        server.advanceTimeBy(AcceptFailures.PAUSE_MILLIS - 1, TimeUnit.MILLISECONDS);
        server.runScheduledPendingTasks();
        assertFalse(server.config().isAutoRead());
        server.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        server.runScheduledPendingTasks();
        assertTrue(server.config().isAutoRead(), "accepting again");
        assertEquals(Optional.empty(), Transport.stopped(server));
        server.checkException();
        server.finishAndReleaseAll();
    }

    @Test
    void oneConnectionsFailureChangesNothing() {
        EmbeddedChannel server = new EmbeddedChannel(new AcceptFailures("studio", PROXY));
        server.pipeline().fireExceptionCaught(new Errors.NativeIoException("accept", -103));

        assertTrue(server.isOpen());
        assertTrue(server.config().isAutoRead());
        server.checkException();
        server.finishAndReleaseAll();
    }

    @Test
    void aSocketThatNoLongerListensIsClosedSayingWhy() {
        EmbeddedChannel server = new EmbeddedChannel(new AcceptFailures("studio", PROXY));
        server.pipeline().fireExceptionCaught(new Errors.NativeIoException("accept", -22));

        assertFalse(server.isOpen());
        assertTrue(
                Transport.stopped(server).orElseThrow().startsWith("accept failed: "),
                Transport.stopped(server).get());
        server.checkException();
    }
}
