package io.portcullis.it.world;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's tinyproxy as a real upstream proxy (SPEC R25), in this test JVM's namespace, which routes
 * only to the test world: it listens on loopback, logs every request line it reads, and runs as
 * {@code nobody}. With {@code resolvConf}, it runs in a mount namespace of its own whose
 * {@code /etc/resolv.conf} and {@code /etc/nsswitch.conf} name only that file's server, so the
 * names it resolves go to a test's DNS server, never to the machine's resolver.
 */
public final class Tinyproxy implements AutoCloseable {
    private final Process process;
    private final int port;
    private final Path dir;
    private final Path log;

    private Tinyproxy(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
        this.log = dir.resolve("tinyproxy.log");
    }

    /**
     * Starts tinyproxy with {@code settings} (extra lines of its configuration, e.g. {@code
     * ConnectPort 443} or {@code BasicAuth user secret}) and waits until it accepts.
     *
     * @param resolvConf the resolv.conf it resolves names with, or null when it must resolve none
     */
    public static Tinyproxy start(List<String> settings, String resolvConf) throws IOException, InterruptedException {
        // Not under the world's folder: tinyproxy writes its log as nobody, who may not enter that one.
        Path dir = Files.createTempDirectory("portcullis-tinyproxy-");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path log = dir.resolve("tinyproxy.log");
        Files.writeString(log, "");
        Files.setPosixFilePermissions(log, PosixFilePermissions.fromString("rw-rw-rw-"));
        int port = freePort();
        List<String> lines = new ArrayList<>(List.of(
                "User nobody",
                "Group nogroup",
                "Port " + port,
                "Listen 127.0.0.1",
                "Timeout 30",
                "LogFile \"" + log + "\"",
                "LogLevel Info",
                "MaxClients 32",
                "Allow 127.0.0.1",
                "DisableViaHeader Yes"));
        lines.addAll(settings);
        Path conf = dir.resolve("tinyproxy.conf");
        Files.write(conf, lines);
        List<String> argv = new ArrayList<>();
        if (resolvConf != null) {
            Path resolv = dir.resolve("resolv.conf");
            Files.writeString(resolv, resolvConf);
            Path nsswitch = dir.resolve("nsswitch.conf");
            Files.writeString(nsswitch, "hosts: files dns\n");
            argv.addAll(List.of(
                    "unshare",
                    "--mount",
                    "--propagation",
                    "private",
                    "--",
                    "/bin/sh",
                    "-c",
                    "mount --bind \"$1\" /etc/resolv.conf && mount --bind \"$2\" /etc/nsswitch.conf && shift 2 && exec \"$@\"",
                    "sh",
                    resolv.toString(),
                    nsswitch.toString()));
        }
        argv.addAll(List.of("tinyproxy", "-d", "-c", conf.toString()));
        Process process = new ProcessBuilder(argv)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("tinyproxy.out").toFile())
                .start();
        Tinyproxy proxy = new Tinyproxy(process, port, dir);
        try {
            proxy.awaitAccepting(dir);
            return proxy;
        } catch (IOException | RuntimeException e) {
            proxy.close();
            throw e;
        }
    }

    public int port() {
        return port;
    }

    /** Everything tinyproxy has logged so far. */
    public String log() throws IOException {
        return Files.readString(log);
    }

    /** The request lines it read, e.g. {@code CONNECT 93.184.77.10:443 HTTP/1.1}, in order. */
    public List<String> requests() throws IOException {
        List<String> requests = new ArrayList<>();
        for (String line : log().lines().toList()) {
            int at = line.indexOf("): ");
            if (line.contains("Request (file descriptor") && at > 0) {
                requests.add(line.substring(at + 3).strip());
            }
        }
        return requests;
    }

    private void awaitAccepting(Path dir) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("tinyproxy exited " + process.exitValue() + ": "
                        + Files.readString(dir.resolve("tinyproxy.out")));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
                return;
            } catch (IOException e) {
                Thread.sleep(20);
            }
        }
        throw new IOException("tinyproxy did not accept on 127.0.0.1:" + port + " within 10 s");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (var files = Files.list(dir)) {
            for (Path file : files.toList()) {
                Files.deleteIfExists(file);
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // Best effort: a leftover folder holds a log and a configuration, nothing live.
        }
    }
}
