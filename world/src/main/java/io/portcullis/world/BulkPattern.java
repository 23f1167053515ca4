package io.portcullis.world;

import java.io.IOException;
import java.io.OutputStream;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

/**
 * The bytes the bulk origin sends: a fixed pseudo-random block, repeated, so both ends know the
 * CRC-32 of any length without keeping the data.
 */
public final class BulkPattern {
    private static final byte[] BLOCK = block();

    private BulkPattern() {}

    /** Writes the first {@code length} bytes of the pattern. */
    public static void write(OutputStream out, long length) throws IOException {
        long left = length;
        while (left > 0) {
            int n = (int) Math.min(left, BLOCK.length);
            out.write(BLOCK, 0, n);
            left -= n;
        }
    }

    /** The CRC-32 of the first {@code length} bytes of the pattern. */
    public static long crc32(long length) {
        CRC32 crc = new CRC32();
        long left = length;
        while (left > 0) {
            int n = (int) Math.min(left, BLOCK.length);
            crc.update(BLOCK, 0, n);
            left -= n;
        }
        return crc.getValue();
    }

    private static byte[] block() {
        byte[] block = new byte[64 * 1024 + 7]; // Not a power of two, so a shifted copy differs.
        new SplittableRandom(77).nextBytes(block);
        return block;
    }
}
