package io.portcullis.entry.wire;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

/**
 * The shared preamble vectors (SPEC R4), for this module's test and the relay's decoder test, so
 * the writer and the reader of the wire are held to one table.
 */
public final class PreambleVectors {

    /** One row: the 8 bytes, and the preamble they mean, or null when they are not one. */
    public record Vector(String hex, byte[] bytes, Preamble expected) {

        public Vector {
            if (bytes.length != Preamble.LENGTH) {
                throw new IllegalArgumentException("bytes: " + bytes.length + " (expected: " + Preamble.LENGTH + ")");
            }
            bytes = bytes.clone();
        }

        @Override
        public byte[] bytes() {
            return bytes.clone();
        }

        public boolean valid() {
            return expected != null;
        }

        @Override
        public String toString() {
            return hex;
        }
    }

    private static final String RESOURCE = "preamble-vectors.tsv";

    private PreambleVectors() {}

    /** Every row of {@code io/portcullis/entry/wire/preamble-vectors.tsv}, in file order. */
    public static List<Vector> all() {
        try (InputStream in = PreambleVectors.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + ": not on the test classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII)
                    .lines()
                    .filter(line -> !line.isBlank() && !line.startsWith("#"))
                    .map(PreambleVectors::row)
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static List<Vector> valid() {
        return all().stream().filter(Vector::valid).toList();
    }

    public static List<Vector> invalid() {
        return all().stream().filter(vector -> !vector.valid()).toList();
    }

    private static Vector row(String line) {
        String[] fields = line.split("\t");
        if (fields.length != 2) {
            throw new IllegalArgumentException("row: '" + line + "' (expected: hex<TAB>KIND:PORT or invalid)");
        }
        byte[] bytes = HexFormat.of().parseHex(fields[0]);
        if (fields[1].equals("invalid")) {
            return new Vector(fields[0], bytes, null);
        }
        String[] kindPort = fields[1].split(":");
        return new Vector(
                fields[0], bytes, new Preamble(Preamble.Kind.valueOf(kindPort[0]), Integer.parseInt(kindPort[1])));
    }
}
