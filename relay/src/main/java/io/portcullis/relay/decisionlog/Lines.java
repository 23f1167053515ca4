package io.portcullis.relay.decisionlog;

import java.util.Arrays;

/** A batch of log lines as one byte array, with where each line ends. */
final class Lines {
    private byte[] bytes = new byte[1 << 16];
    private int length;
    private int[] ends = new int[256];
    private int count;

    void add(byte[] line) {
        if (length + line.length > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + line.length));
        }
        System.arraycopy(line, 0, bytes, length, line.length);
        length += line.length;
        if (count == ends.length) {
            ends = Arrays.copyOf(ends, count * 2);
        }
        ends[count++] = length;
    }

    byte[] bytes() {
        return bytes;
    }

    int length() {
        return length;
    }

    int count() {
        return count;
    }

    /** How many lines end within the first {@code written} bytes. */
    int wholeLinesIn(long written) {
        int whole = 0;
        while (whole < count && ends[whole] <= written) {
            whole++;
        }
        return whole;
    }

    /** The offset just after the first {@code lines} lines. */
    int endOf(int lines) {
        return lines == 0 ? 0 : ends[lines - 1];
    }

    void clear() {
        length = 0;
        count = 0;
    }
}
