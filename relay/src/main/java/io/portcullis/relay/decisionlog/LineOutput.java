package io.portcullis.relay.decisionlog;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Optional;

/** Where the log's writer thread puts whole lines. */
interface LineOutput extends AutoCloseable {

    /**
     * Writes {@code lines}; what is written is always whole lines.
     *
     * @return how many of the lines were written; fewer than all only with {@code error} set
     */
    Written write(Lines lines);

    /** Opens the file again by its path (after log rotation); a stream does nothing. */
    void reopen() throws IOException;

    @Override
    void close() throws IOException;

    /** How a write went. */
    record Written(int lines, Optional<IOException> error) {}

    /** Lines to a stream that stays open (standard error): all of a batch, or none of it counted. */
    static LineOutput of(OutputStream stream) {
        return new LineOutput() {
            @Override
            public Written write(Lines lines) {
                try {
                    stream.write(lines.bytes(), 0, lines.length());
                    stream.flush();
                    return new Written(lines.count(), Optional.empty());
                } catch (IOException e) {
                    return new Written(0, Optional.of(e));
                }
            }

            @Override
            public void reopen() {}

            @Override
            public void close() throws IOException {
                stream.flush();
            }
        };
    }
}
