package io.portcullis.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.portcullis.log.JsonLog;
import io.portcullis.owner.ManagedOwnerCheck;
import io.portcullis.owner.OwnerChecks;
import io.portcullis.owner.WallProcesses;
import io.portcullis.relay.judge.PolicyJudge;
import io.portcullis.relay.judge.PolicyJudges;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Target;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.wire.Handoff;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.slf4j.event.Level;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code portcullis check}: the verdict each target would get, without connecting (SPEC R40, R42). */
@Command(
        name = "check",
        mixinStandardHelpOptions = true,
        description = {
            "Prints the verdict each target would get under a spawn policy, without connecting. Names are resolved "
                    + "(DNS) exactly as the relay would; nothing else is sent anywhere.",
            "",
            "A target is host:port (judged as a CONNECT) or http://host[:port] (a plain HTTP request). "
                    + "One JSON line per target, in input order:",
            "  {\"target\", \"verdict\": \"allow\"|\"deny\", \"code\" (deny only), \"addresses\", \"detail\"}",
            "with \"clientHello\": {\"serverName\"} when the tunnel must start with a TLS ClientHello for that name, "
                    + "and \"named\": \"127.77.0.n:port\" for a tcp entry reached by name inside the namespace.",
            "",
            "A target on this host gets the owner check's real answer, as the relay would give it now.",
            "",
            "A target is judged exactly as the relay judges the same bytes in a request line, read as ISO-8859-1 "
                    + "like the relay reads a request head: nothing is trimmed, so write names as clients send "
                    + "them (xn--). From standard input, one target a line; only the line end (LF or CRLF) is "
                    + "removed; empty lines and lines starting with # are skipped.",
            "",
            "Names resolve through the DNS servers of the host file's dns.servers; when it names none (or there is "
                    + "no --host), through this machine's resolver (/etc/resolv.conf), which is said once on "
                    + "standard error.",
            "",
            "With --host FILE and no --spawn, checks the host file alone, as the relay would find it at start: its "
                    + "fields (every problem on standard error, exit 2), that log.file's folder exists and this uid may "
                    + "write it (or that the file there is one the relay would append to), and that each DNS server "
                    + "answers one question (invalid. A) within dns.timeoutMillis. One JSON line each:",
            "  {\"check\": \"file\"|\"log.file\"|\"dns.servers\", \"server\" (dns only), \"verdict\": \"ok\"|\"fail\","
                    + " \"detail\"}",
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:every target is allowed (--host alone: every check passed)",
            "1:some target is denied (--host alone: some check failed)",
            "2:usage or configuration error"
        })
final class CheckCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    static final String SYSTEM_RESOLVER = "portcullis check: names resolve through this machine's resolver "
            + "(/etc/resolv.conf); give dns.servers in --host to use others";

    @Spec
    CommandSpec spec;

    @ParentCommand
    Main main;

    @Option(
            names = "--spawn",
            paramLabel = "FILE",
            description = "The spawn policy (JSON; see docs/policy.md) whose verdicts are printed.")
    Optional<Path> spawnFile = Optional.empty();

    @Option(
            names = "--host",
            paramLabel = "FILE",
            description = "The host configuration (JSON; see docs/policy.md); defaults when absent. Alone (no --spawn),"
                    + " the file itself is checked: its fields, log.file's folder, each DNS server.")
    Optional<Path> hostFile = Optional.empty();

    @Parameters(
            paramLabel = "TARGET",
            arity = "0..*",
            description = "host:port or http://host[:port][/path]; when none, one per line from standard input.")
    List<String> targets = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        JsonLog.forPerson("portcullis check", Level.WARN);
        List<String> problems = new ArrayList<>();
        if (spawnFile.isEmpty()) {
            return hostAlone(out, err, problems);
        }
        Optional<SpawnPolicy> read = ConfigFiles.spawn(spawnFile.get(), problems);
        Optional<HostConfig> readHost = ConfigFiles.host(hostFile, problems);
        if (ConfigFiles.report(problems, err)) {
            return 2;
        }
        SpawnPolicy spawn = read.orElseThrow();
        HostConfig host = readHost.orElseThrow();
        if (host.dns().servers().isEmpty()) {
            err.println(SYSTEM_RESOLVER);
            err.flush();
        }
        List<String> input = targets.isEmpty() ? lines(main.stdin().readAllBytes()) : asRelayReads(targets);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (ManagedOwnerCheck owner = OwnerChecks.system(host.owner(), WallProcesses.withSelf());
                PolicyJudges.Standalone judged = PolicyJudges.standalone(host, group.next(), owner)) {
            PolicyJudge judge = judged.judge();
            long bound = judged.decisionBound();
            boolean denied = false;
            for (String target : input) {
                Verdict verdict = verdict(judge, spawn, target, bound);
                denied |= verdict instanceof Verdict.Deny;
                ObjectNode line = line(target, verdict, named(spawn, target));
                if (spawn.shadow().isPresent()) {
                    line.set("shadow", shadow(judge, spawn.shadow().get(), target, verdict, bound));
                }
                out.println(line);
                out.flush();
            }
            return denied ? 1 : 0;
        } catch (IOException e) {
            err.println("portcullis check: " + e.getMessage());
            return 2;
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    /** {@code check --host FILE} alone: one line per finding (HostCheck); 0 when every one is ok, else 1. */
    private int hostAlone(PrintWriter out, PrintWriter err, List<String> problems) {
        if (hostFile.isEmpty()) {
            problems.add("portcullis check: --spawn FILE or --host FILE (expected: a spawn policy to judge targets"
                    + " against, or a host file alone to check)");
        } else if (!targets.isEmpty()) {
            problems.add("portcullis check: " + targets.getFirst() + " (expected: targets with --spawn FILE; --host"
                    + " FILE alone checks the host file)");
        }
        Optional<HostConfig> host = hostFile.isEmpty() ? Optional.empty() : ConfigFiles.host(hostFile, problems);
        if (ConfigFiles.report(problems, err)) {
            return 2;
        }
        boolean failed = false;
        // Reported when either is missing: both are here.
        for (HostCheck.Line line : HostCheck.check(hostFile.orElseThrow(), host.orElseThrow())) {
            failed |= !line.ok();
            out.println(line.json());
            out.flush();
        }
        return failed ? 1 : 0;
    }

    /**
     * The targets of standard input (R40): one a line, taken as is, only its terminator ({@code LF}
     * or {@code CRLF}) removed, so that {@code " a.example:443"} or a BOM is judged, and refused, as
     * the relay would refuse it in a request line. Empty lines and lines starting with {@code #}
     * are comments; no target can start with {@code #} (R7 refuses it anywhere).
     */
    static List<String> lines(byte[] input) {
        List<String> lines = new ArrayList<>();
        int from = 0;
        while (from < input.length) {
            int lf = from;
            while (lf < input.length && input[lf] != '\n') {
                lf++;
            }
            int end = lf < input.length && lf > from && input[lf - 1] == '\r' ? lf - 1 : lf;
            String line = new String(input, from, end - from, StandardCharsets.ISO_8859_1);
            if (!line.isEmpty() && line.charAt(0) != '#') {
                lines.add(line);
            }
            from = lf + 1;
        }
        return lines;
    }

    /**
     * Arguments as the relay would read the same bytes: their UTF-8 bytes taken as ISO-8859-1,
     * as a request head is read, so an argument and a line of standard input get one verdict.
     */
    static List<String> asRelayReads(List<String> arguments) {
        return arguments.stream()
                .map(a -> new String(a.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1))
                .toList();
    }

    /**
     * The relay's verdict on {@code target} (R40): {@code http://...} is a plain HTTP request read by
     * the relay's absolute-URI parser, anything else a CONNECT target.
     */
    private static Verdict verdict(PolicyJudge judge, SpawnPolicy spawn, String target, long boundMillis) {
        Request request;
        try {
            request = target.regionMatches(true, 0, "http://", 0, 7)
                    ? Request.plainHttp(target)
                    : Request.connect(target);
        } catch (IllegalArgumentException e) {
            return new Verdict.Deny(DenyCode.BAD_REQUEST, String.valueOf(e.getMessage()));
        }
        return judge.decide(spawn, request)
                .completeOnTimeout(
                        new Verdict.Deny(DenyCode.INTERNAL_ERROR, "no decision in time"),
                        boundMillis,
                        TimeUnit.MILLISECONDS)
                .join();
    }

    /** {@code http://...}: a plain HTTP request, read by the relay's absolute-URI parser; else a CONNECT. */
    private static Optional<Request> request(String target) {
        if (!target.regionMatches(true, 0, "http://", 0, 7)) {
            return Optional.of(Request.connect(target));
        }
        try {
            return Optional.of(Request.plainHttp(target));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * What the spawn's shadow policy would answer (R26), on the enforced decision's addresses:
     * {@code {"verdict": "allow"|"deny"|"unknown", "code"}}, always shown.
     */
    private static ObjectNode shadow(
            PolicyJudge judge, SpawnPolicy shadow, String target, Verdict enforced, long boundMillis) {
        ObjectNode node = JSON.createObjectNode();
        Optional<Request> request = request(target);
        Optional<Verdict> answer = request.isEmpty()
                ? Optional.of(enforced)
                : judge.shadow(shadow, request.get(), enforced)
                        .completeOnTimeout(Optional.empty(), boundMillis, TimeUnit.MILLISECONDS)
                        .join();
        switch (answer.orElse(null)) {
            case null -> node.put("verdict", "unknown");
            case Verdict.Allow allow -> node.put("verdict", "allow");
            case Verdict.Deny deny ->
                node.put("verdict", "deny").put("code", deny.code().code());
        }
        return node;
    }

    /** The synthetic socket of {@code target} inside the namespace, when it is a named entry (R24). */
    static Optional<InetSocketAddress> named(SpawnPolicy spawn, String target) {
        try {
            return spawn.named().stream()
                    .filter(n -> n.entry().target().equals(Target.parse(target)))
                    .map(SpawnPolicy.Named::address)
                    .findFirst();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    static String line(String target, Verdict verdict) {
        return line(target, verdict, Optional.empty()).toString();
    }

    /**
     * One target's line. {@code named}: the named entry's synthetic socket inside the namespace;
     * {@code clientHello}: for an allowed tunnel that must start with a TLS ClientHello (R23), the
     * server name it must carry ({@code null}: none, for an IP literal).
     */
    static ObjectNode line(String target, Verdict verdict, Optional<InetSocketAddress> named) {
        ObjectNode line = JSON.createObjectNode();
        line.put("target", target);
        ArrayNode addresses = JSON.createArrayNode();
        for (InetAddress address : verdict.resolved()) {
            addresses.add(Target.text(address));
        }
        switch (verdict) {
            case Verdict.Allow allow -> {
                line.put("verdict", "allow");
                line.set("addresses", addresses);
                line.put("detail", allow.detail());
                if (allow.first().clientHello()) {
                    line.putObject("clientHello")
                            .put("serverName", allow.first().serverName().orElse(null));
                }
            }
            case Verdict.Deny deny -> {
                line.put("verdict", "deny");
                line.put("code", deny.code().code());
                line.set("addresses", addresses);
                line.put("detail", deny.detail());
            }
        }
        named.ifPresent(address -> line.put("named", Handoff.text(address)));
        return line;
    }
}
