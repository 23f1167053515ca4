package io.portcullis.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.portcullis.owner.OwnerChecks;
import io.portcullis.owner.PortHolders;
import io.portcullis.relay.decisionlog.JsonLineSink;
import io.portcullis.relay.dnsclient.LocalServerCheck;
import io.portcullis.relay.judge.OwnAddressBook;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Target;
import io.portcullis.relay.rules.OwnAddresses;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code portcullis check --host FILE} without a spawn: what the relay would trip over when it
 * starts with this host file, found before it does (as {@code nginx -t} or {@code squid -k parse}).
 * The file has been read by the relay's own parser; here, one line for the file, one for
 * {@code log.file}, and one for each DNS server, each {@code ok} or {@code fail} with why.
 */
final class HostCheck {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The longest a server is waited for, whatever {@code dns.timeoutMillis} says. */
    private static final Duration MOST = Duration.ofSeconds(10);

    private static final Path RESOLV_CONF = Path.of("/etc/resolv.conf");

    private HostCheck() {}

    /** One finding. */
    record Line(String check, Optional<String> server, boolean ok, String detail) {
        ObjectNode json() {
            ObjectNode line = JSON.createObjectNode();
            line.put("check", check);
            server.ifPresent(s -> line.put("server", s));
            line.put("verdict", ok ? "ok" : "fail");
            line.put("detail", detail);
            return line;
        }
    }

    /** Every finding for {@code host}, read from {@code file}, in order. */
    static List<Line> check(Path file, HostConfig host) {
        List<Line> lines = new ArrayList<>();
        lines.add(new Line("file", Optional.empty(), true, file + ": every field is valid"));
        lines.add(logFile(host));
        lines.addAll(dns(host));
        return lines;
    }

    private static Line logFile(HostConfig host) {
        if (host.log().file().isEmpty()) {
            return new Line("log.file", Optional.empty(), true, "none: decision lines go to standard error");
        }
        Path log = host.log().file().get();
        int uid = LocalServerCheck.processUid();
        Optional<String> problem = JsonLineSink.problem(log);
        return problem.isEmpty()
                ? new Line(
                        "log.file",
                        Optional.empty(),
                        true,
                        log + ": uid " + Integer.toUnsignedString(uid) + " may make or append to it")
                : new Line(
                        "log.file",
                        Optional.empty(),
                        false,
                        log + ": " + problem.get() + " (checked as uid " + Integer.toUnsignedString(uid)
                                + ", which runs this check: run it as the relay's user)");
    }

    /** Each server of {@code dns.servers}, or of /etc/resolv.conf when it names none, asked once. */
    private static List<Line> dns(HostConfig host) {
        List<InetSocketAddress> servers = host.dns().servers();
        String from = "dns.servers";
        if (servers.isEmpty()) {
            servers = resolvConf();
            from = "dns.servers (none: " + RESOLV_CONF + ")";
            if (servers.isEmpty()) {
                return List.of(new Line(from, Optional.empty(), false, RESOLV_CONF + " names no server"));
            }
        }
        Duration timeout = host.dns().timeout().compareTo(MOST) < 0 ? host.dns().timeout() : MOST;
        LocalServerCheck guard = guard(host);
        List<Line> lines = new ArrayList<>();
        for (InetSocketAddress server : servers) {
            lines.add(server(from, server, guard, timeout));
        }
        return lines;
    }

    /** A server on this host is asked only while a trusted uid holds its port (R25), as the relay asks. */
    private static Line server(String from, InetSocketAddress server, LocalServerCheck guard, Duration timeout) {
        String name = Target.text(server);
        Optional<LocalServerCheck.Refusal> refusal;
        try {
            refusal =
                    guard.judge(PortHolders.Protocol.UDP, server).get(timeout.toMillis() + 5000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return new Line(from, Optional.of(name), false, "who holds its port could not be read: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Line(from, Optional.of(name), false, "interrupted");
        }
        if (refusal.isPresent()) {
            return new Line(from, Optional.of(name), false, refusal.get().detail() + "; it is sent nothing");
        }
        DnsProbe.Result result = DnsProbe.ask(server, timeout);
        return new Line(from, Optional.of(name), result.answered(), result.detail());
    }

    private static LocalServerCheck guard(HostConfig host) {
        OwnAddresses own;
        try {
            own = new OwnAddresses(Set.copyOf(OwnAddressBook.Interfaces.jdk().addresses()));
        } catch (SocketException e) {
            own = OwnAddresses.NONE;
        }
        OwnAddresses interfaces = own;
        return new LocalServerCheck(
                LocalServerCheck.DNS_SERVER,
                OwnerChecks.portHolders(host.owner().cacheWindow()),
                host.dns().uids(),
                () -> interfaces,
                LocalServerCheck.processUid());
    }

    /** The {@code nameserver} lines of /etc/resolv.conf, port 53. */
    private static List<InetSocketAddress> resolvConf() {
        List<InetSocketAddress> servers = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(RESOLV_CONF, StandardCharsets.UTF_8)) {
                String[] words = line.strip().split("\\s+");
                if (words.length >= 2 && words[0].equals("nameserver")) {
                    try {
                        servers.add(new InetSocketAddress(InetAddress.ofLiteral(words[1]), 53));
                    } catch (IllegalArgumentException notLiteral) {
                        // a scoped or odd address: the relay's resolver would skip it too
                    }
                }
            }
        } catch (IOException e) {
            return List.of();
        }
        return servers;
    }
}
