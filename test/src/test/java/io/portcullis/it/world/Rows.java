package io.portcullis.it.world;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** Test tables written as {@code "a | b | -"} lines: one row of arguments per line, {@code -} for none. */
public final class Rows {
    private Rows() {}

    public static Stream<Arguments> of(List<String> lines) {
        return lines.stream()
                .map(line -> Arrays.stream(line.split("\\|"))
                        .map(String::strip)
                        .map(cell -> cell.equals("-") ? null : cell)
                        .toArray())
                .map(Arguments::of);
    }
}
