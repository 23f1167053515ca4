package io.portcullis.it.upstream;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An upstream proxy on loopback that gives the answers a real one rarely does (a server's first
 * bytes glued to its 200, a 503 for one address, garbage, silence, a head too long): each
 * connection reads one request head, records it, and gets the next of {@code answers}. Nothing
 * here dials anything.
 */
final class ScriptedProxy implements AutoCloseable {
    /** What one connection gets once its head is read. */
    enum Then {
        /** Writes the bytes, then echoes what follows. */
        ECHO,
        /** Writes the bytes and closes. */
        CLOSE,
        /** Writes the bytes and then nothing, until the relay gives up. */
        HOLD
    }

    record Answer(String bytes, Then then) {}

    private final ServerSocket server;
    private final List<String> heads = new CopyOnWriteArrayList<>();
    private final java.util.concurrent.atomic.AtomicInteger ended = new java.util.concurrent.atomic.AtomicInteger();
    private final List<Socket> open = new CopyOnWriteArrayList<>();

    ScriptedProxy(List<Answer> answers) throws IOException {
        server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("scripted-proxy").start(() -> {
            for (int i = 0; ; i++) {
                Socket socket;
                try {
                    socket = server.accept();
                } catch (IOException e) {
                    return;
                }
                open.add(socket);
                Answer answer = answers.get(Math.min(i, answers.size() - 1));
                Thread.ofPlatform().daemon().name("scripted-proxy-" + i).start(() -> serve(socket, answer));
            }
        });
    }

    int port() {
        return server.getLocalPort();
    }

    /** How many connections have ended, the relay having closed its side or this one its own. */
    int ended() {
        return ended.get();
    }

    /** The request heads read so far, one per connection, without their final empty line. */
    List<String> heads() {
        return List.copyOf(heads);
    }

    private void serve(Socket socket, Answer answer) {
        try (socket) {
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            heads.add(readHead(in));
            out.write(answer.bytes().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            switch (answer.then()) {
                case ECHO -> in.transferTo(out);
                case CLOSE -> {}
                case HOLD -> in.transferTo(OutputStream.nullOutputStream());
            }
        } catch (IOException e) {
            // The relay closed its side: this connection is over.
        } finally {
            ended.incrementAndGet();
        }
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.write(b);
            matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.ISO_8859_1).strip();
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket socket : open) {
            socket.close();
        }
    }
}
