package io.portcullis.world;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * Bulk transfers. The client sends one line: {@code get N} and the origin sends N bytes of the
 * {@link BulkPattern}, then half-closes; {@code put} and the origin reads to the end, then answers
 * {@code <count> <crc32 hex>\n}.
 */
final class BulkOrigin implements Origin {
    private static final int MAX_LINE = 64;

    @Override
    public void serve(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream();
        String line = readLine(in);
        if (line.startsWith("get ")) {
            BulkPattern.write(out, Long.parseLong(line.substring(4).strip()));
            out.flush();
            socket.shutdownOutput();
            in.transferTo(OutputStream.nullOutputStream());
        } else if (line.equals("put")) {
            CRC32 crc = new CRC32();
            byte[] buffer = new byte[64 * 1024];
            long count = 0;
            for (int n; (n = in.read(buffer)) > 0; count += n) {
                crc.update(buffer, 0, n);
            }
            out.write((count + " " + Long.toHexString(crc.getValue()) + "\n").getBytes(StandardCharsets.US_ASCII));
            socket.shutdownOutput();
        } else {
            out.write("error: expected `get N` or `put`\n".getBytes(StandardCharsets.US_ASCII));
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b; (b = in.read()) >= 0 && b != '\n'; ) {
            if (line.size() == MAX_LINE) {
                throw new IOException("bulk: request line longer than " + MAX_LINE + " bytes");
            }
            line.write(b);
        }
        return line.toString(StandardCharsets.US_ASCII).strip();
    }
}
