package io.portcullis.owner.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real LISTEN socket (or a bound UDP socket) held by a python3 subprocess, optionally under
 * another uid ({@code setpriv}), from a chosen working directory and with extra argv elements;
 * when recording, it accepts and reads, and counts what it received. Closing it kills the process.
 */
public final class PythonListener implements AutoCloseable {
    private static final String PYTHON = "/usr/bin/python3";
    private static final String SCRIPT = script();

    private final Process process;
    private final int port;
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicLong received = new AtomicLong();

    private PythonListener(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Counts what a recording listener reports, one line at a time, until it exits. */
    private void count(BufferedReader out) {
        Thread reader = new Thread(
                () -> {
                    try {
                        for (String line; (line = out.readLine()) != null; ) {
                            if (line.equals("conn")) {
                                connections.incrementAndGet();
                            } else if (line.startsWith("recv ")) {
                                received.addAndGet(
                                        Long.parseLong(line.substring(5).strip()));
                            }
                        }
                    } catch (IOException e) {
                        // The process is gone: nothing more to count.
                    }
                },
                "python-listener-" + port);
        reader.setDaemon(true);
        reader.start();
    }

    /** The connections a recording TCP listener accepted so far. */
    public int connections() {
        return connections.get();
    }

    /** The bytes a recording listener received so far, TCP or UDP. */
    public long received() {
        return received.get();
    }

    public static Builder v4(String address) {
        return new Builder("4", address);
    }

    public static Builder v6(String address) {
        return new Builder("6", address);
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
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

    /** A world-readable temporary folder, so a listener under another uid may run from it. */
    public static Path openFolder(String prefix) {
        try {
            Path dir = Files.createTempDirectory(prefix);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            return dir.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String script() {
        try (InputStream in = PythonListener.class.getResourceAsStream("listen.py")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One listener's shape and owner. */
    public static final class Builder {
        private final String family;
        private final String address;
        private int port;
        private boolean v6Only;
        private String device = "-";
        private boolean reusePort;
        private int uid = -1;
        private boolean udp;
        private boolean recording;
        private Path cwd = Path.of("/");
        private final List<String> extraArgs = new ArrayList<>();

        private Builder(String family, String address) {
            this.family = family;
            this.address = address;
        }

        public Builder port(int value) {
            port = value;
            return this;
        }

        public Builder v6Only() {
            v6Only = true;
            return this;
        }

        public Builder device(String name) {
            device = name;
            return this;
        }

        public Builder reusePort() {
            reusePort = true;
            return this;
        }

        /** A bound UDP socket instead of a TCP listener. */
        public Builder udp() {
            udp = true;
            return this;
        }

        /** Accepts and reads everything sent, counting it ({@link #connections()}, {@link #received()}). */
        public Builder recording() {
            recording = true;
            return this;
        }

        public Builder uid(int value) {
            uid = value;
            return this;
        }

        public Builder cwd(Path dir) {
            cwd = dir;
            return this;
        }

        public Builder arg(String value) {
            extraArgs.add(value);
            return this;
        }

        public PythonListener start() {
            List<String> command = new ArrayList<>();
            if (uid >= 0) {
                command.addAll(List.of(
                        "setpriv",
                        "--reuid",
                        Integer.toString(uid),
                        "--regid",
                        Integer.toString(uid),
                        "--clear-groups"));
            }
            command.addAll(List.of(
                    PYTHON,
                    "-c",
                    SCRIPT,
                    family + (udp ? "u" : "") + (recording ? "r" : ""),
                    address,
                    Integer.toString(port),
                    v6Only ? "1" : "0",
                    device,
                    reusePort ? "1" : "0"));
            command.addAll(extraArgs);
            try {
                Process process = new ProcessBuilder(command)
                        .directory(cwd.toFile())
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
                BufferedReader out =
                        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                String line = out.readLine();
                if (line == null) {
                    process.destroyForcibly();
                    throw new IllegalStateException("listener did not start: " + command.subList(0, 3) + " " + address);
                }
                PythonListener listener = new PythonListener(process, Integer.parseInt(line.strip()));
                if (recording) {
                    listener.count(out);
                }
                return listener;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
