package io.portcullis.it.dist;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * One request to the daemon's control socket, for a system that has no curl: run on the
 * distribution's own runtime inside the test's Debian system, from this class file alone (JDK only,
 * no nested class). Prints the status code on the first line, then the body.
 *
 * <pre>java -cp DIR io.portcullis.it.dist.ControlCall SOCKET METHOD PATH [BODY]</pre>
 */
public final class ControlCall {
    private ControlCall() {}

    public static void main(String[] args) throws IOException {
        String body = args.length > 3 ? args[3] : "";
        byte[] content = body.getBytes(StandardCharsets.UTF_8);
        String head = args[1] + " " + args[2] + " HTTP/1.1\r\nHost: portcullis\r\nConnection: close\r\n"
                + (content.length > 0 ? "Content-Type: application/json\r\n" : "")
                + "Content-Length: " + content.length + "\r\n\r\n";
        ByteArrayOutputStream answer = new ByteArrayOutputStream();
        try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(Path.of(args[0])))) {
            channel.write(ByteBuffer.wrap(head.getBytes(StandardCharsets.US_ASCII)));
            channel.write(ByteBuffer.wrap(content));
            ByteBuffer buffer = ByteBuffer.allocate(65_536);
            while (channel.read(buffer) >= 0) {
                answer.write(buffer.array(), 0, buffer.position());
                buffer.clear();
                if (whole(answer.toString(StandardCharsets.UTF_8))) {
                    break;
                }
            }
        }
        String text = answer.toString(StandardCharsets.UTF_8);
        int end = text.indexOf("\r\n\r\n");
        System.out.println(text.substring(9, 12));
        System.out.print(end < 0 ? "" : text.substring(end + 4));
    }

    /** Whether the answer's head and as much body as its Content-Length says are there. */
    private static boolean whole(String text) {
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            return false;
        }
        for (String line : text.substring(0, end).split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                int length = Integer.parseInt(
                        line.substring("content-length:".length()).strip());
                return text.getBytes(StandardCharsets.UTF_8).length - end - 4 >= length;
            }
        }
        return false;
    }
}
