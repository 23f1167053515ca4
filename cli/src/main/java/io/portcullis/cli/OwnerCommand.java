package io.portcullis.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.portcullis.owner.ManagedOwnerCheck;
import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.owner.OwnerChecks;
import io.portcullis.owner.OwnerCode;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.owner.OwnerQuery;
import io.portcullis.owner.WallProcesses;
import io.portcullis.relay.judge.PolicyJudges;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Target;
import io.portcullis.relay.policy.Verdict;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code portcullis owner}: the owner check's verdict for one address and port, with its evidence (SPEC R36). */
@Command(
        name = "owner",
        mixinStandardHelpOptions = true,
        description = {
            "Asks the owner check who owns the listening socket that would answer ADDRESS:PORT on this host, and "
                    + "whether add-on ID may reach it. Nothing is dialed. One JSON object:",
            "  {\"verdict\": \"allow\"|\"deny\", \"code\" (null when allowed), \"detail\",",
            "   \"evidence\": {\"listeners\", \"processes\", \"container\"}}",
            "With --default the entry is judged as a manifest default (R12): it must name a loopback address and not "
                    + "the gateway's port, and only the add-on's own running compose project may answer.",
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:allowed", "1:denied", "2:usage or configuration error"})
final class OwnerCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final InetAddress LOCALHOST = InetAddress.ofLiteral("127.0.0.1");
    /** Past the check's own 5 s deadline: only a broken check waits this long, and it is refused. */
    private static final long WAIT_SECONDS = 10;

    @Spec
    CommandSpec spec;

    @Option(
            names = "--spawn",
            required = true,
            paramLabel = "ID",
            description = "The add-on id (the spawn's id) asking.")
    String addon;

    @Option(
            names = "--host",
            paramLabel = "FILE",
            description = "The host configuration (JSON; see docs/policy.md); defaults when absent.")
    Optional<Path> hostFile = Optional.empty();

    @Option(
            names = "--default",
            description = "Judge the target as a manifest default (source: default) instead of an owner-typed entry.")
    boolean manifestDefault;

    @Parameters(
            paramLabel = "ADDRESS:PORT",
            arity = "1",
            description = "An address literal (IPv6 in brackets) or localhost, and a port.")
    String target;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        List<String> problems = new ArrayList<>();
        Optional<HostConfig> host = ConfigFiles.host(hostFile, problems);
        if (addon.isBlank()) {
            problems.add("--spawn: \"" + addon + "\" (expected: an add-on id)");
        }
        Optional<Target> parsed = parse(target, problems);
        if (ConfigFiles.report(problems, err)) {
            return 2;
        }
        Printed outcome;
        try {
            outcome = outcome(host.orElseThrow(), parsed.orElseThrow());
        } catch (IOException e) {
            err.println("portcullis owner: " + e.getMessage());
            err.flush();
            return 2;
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println(outcome.json());
        out.flush();
        return outcome.code().isEmpty() ? 0 : 1;
    }

    /** What is printed: an owner answer, or a manifest default's refusal before any owner check. */
    record Printed(Optional<String> code, String detail, OwnerEvidence evidence) {
        static Printed of(OwnerAnswer answer) {
            return new Printed(answer.code().map(OwnerCode::code), answer.detail(), answer.evidence());
        }

        String json() {
            ObjectNode object = JSON.createObjectNode();
            object.put("verdict", code.isEmpty() ? "allow" : "deny");
            if (code.isPresent()) {
                object.put("code", code.get());
            } else {
                object.putNull("code");
            }
            object.put("detail", detail);
            object.set("evidence", JSON.valueToTree(evidence));
            return object.toString();
        }
    }

    /**
     * As the relay asks (R11, R32): an address in a Docker network that is not this host's own
     * (read as the relay reads its own addresses) is a container's question only. Anything else is
     * asked as this host's own, as before; the relay asks about nothing else.
     */
    private static boolean hostOwn(PolicyJudges.Standalone judged, InetAddress address, OwnerCheck owner) {
        return !owner.dockerNetworks().contains(address)
                || judged.ownAddresses().contains(address);
    }

    private static Optional<Target> parse(String text, List<String> problems) {
        try {
            Target parsed = Target.parse(text);
            if (parsed.isName() && !parsed.host().equals("localhost")) {
                problems.add("ADDRESS:PORT: \"" + text + "\" (expected: an address literal or localhost, not a name)");
                return Optional.empty();
            }
            return Optional.of(parsed);
        } catch (IllegalArgumentException e) {
            problems.add("ADDRESS:PORT: " + e.getMessage());
            return Optional.empty();
        }
    }

    /** The owner check's answer, over the policy's judge built as the relay builds it. */
    private Printed outcome(HostConfig host, Target parsed) throws IOException {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (ManagedOwnerCheck owner = OwnerChecks.system(host.owner(), WallProcesses.withSelf());
                PolicyJudges.Standalone judged = PolicyJudges.standalone(host, group.next(), owner)) {
            return outcome(judged, owner, parsed);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    private Printed outcome(PolicyJudges.Standalone judged, OwnerCheck owner, Target parsed) {
        if (manifestDefault) {
            // The relay refuses such a default before it asks the owner check, so this prints no evidence.
            Optional<Verdict.Deny> refusal = judged.rules().defaultRefusal(parsed);
            if (refusal.isPresent()) {
                return new Printed(
                        Optional.of(refusal.get().code().code()), refusal.get().detail(), OwnerEvidence.NONE);
            }
        }
        InetAddress address = parsed.literal().orElse(LOCALHOST);
        OwnerQuery query = new OwnerQuery(
                addon,
                manifestDefault ? OwnerQuery.Source.DEFAULT : OwnerQuery.Source.OWNER,
                address,
                parsed.port(),
                hostOwn(judged, address, owner));
        return Printed.of(owner.check(query)
                .completeOnTimeout(
                        OwnerAnswer.deny(
                                OwnerCode.ERROR, "no answer within " + WAIT_SECONDS + " s", OwnerEvidence.NONE),
                        WAIT_SECONDS,
                        TimeUnit.SECONDS)
                .join());
    }
}
