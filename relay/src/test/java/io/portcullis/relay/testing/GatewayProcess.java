package io.portcullis.relay.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A gateway in its own process under a uid ({@code setpriv}), listening on 127.0.0.1 on a port the
 * kernel picks: it answers each request with {@code 200} and a body of the request head exactly as
 * it arrived, so a test sees what the gateway got, and counts the connections it accepts, so a
 * test sees that a refused request never reached it. Closing it kills the process.
 */
public final class GatewayProcess implements AutoCloseable {
    private static final String ECHO = """
            import socket, sys
            server = socket.socket()
            server.bind(("127.0.0.1", 0))
            server.listen(16)
            print(server.getsockname()[1], flush=True)
            while True:
                client, _ = server.accept()
                print("accepted", flush=True)
                try:
                    data = b""
                    while b"\\r\\n\\r\\n" not in data:
                        chunk = client.recv(65536)
                        if not chunk:
                            break
                        data += chunk
                    client.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: %d\\r\\n\\r\\n" % len(data) + data)
                except OSError:
                    pass
                finally:
                    client.close()
            """;

    private final Process process;
    private final int port;
    private final AtomicInteger connections = new AtomicInteger();

    private GatewayProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts the gateway as {@code uid} and returns once it listens. */
    public static GatewayProcess start(int uid) throws IOException {
        Process process = new ProcessBuilder(
                        "setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups", "/usr/bin/python3", "-c", ECHO)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
        String first = out.readLine();
        if (first == null) {
            process.destroyForcibly();
            throw new IllegalStateException("the python gateway as uid " + uid + ": not listening");
        }
        GatewayProcess gateway = new GatewayProcess(process, Integer.parseInt(first.strip()));
        Thread.ofVirtual().start(() -> gateway.count(out));
        return gateway;
    }

    private void count(BufferedReader out) {
        try {
            while (out.readLine() != null) {
                connections.incrementAndGet();
            }
        } catch (IOException e) {
            // The process was killed: nothing more to count.
        }
    }

    public int port() {
        return port;
    }

    /** The connections accepted so far. */
    public int connections() {
        return connections.get();
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
