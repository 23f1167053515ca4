package io.portcullis.it.world;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

/** The leak check fails on a real leak, so a class that leaks cannot pass. */
class NettyLeaksTest {

    @Test
    void aDroppedBufferIsReported() throws Exception {
        NettyLeaks.assertNone();
        leak();
        AssertionError error = assertThrows(AssertionError.class, NettyLeaks::assertNone);
        assertTrue(error.getMessage().contains("LEAK: ByteBuf"), error.getMessage());
        NettyLeaks.assertNone();
    }

    private static void leak() {
        ByteBuf buffer = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        buffer.writeInt(7);
    }
}
