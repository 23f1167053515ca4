package io.portcullis.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.portcullis.owner.ManagedOwnerCheck;
import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.owner.OwnerChecks;
import io.portcullis.owner.OwnerCode;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.owner.OwnerQuery;
import io.portcullis.owner.WallProcesses;
import io.portcullis.relay.decide.OwnAddressBook;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.OwnAddresses;
import io.portcullis.relay.policy.Rules;
import io.portcullis.relay.policy.Target;
import io.portcullis.relay.policy.Verdict;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.SocketException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
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
        Outcome outcome = outcome(host.orElseThrow(), parsed.orElseThrow());
        PrintWriter out = spec.commandLine().getOut();
        out.println(outcome.json());
        out.flush();
        return outcome.code().isEmpty() ? 0 : 1;
    }

    /** What is printed: an owner answer, or a manifest default's refusal before any owner check. */
    record Outcome(Optional<String> code, String detail, OwnerEvidence evidence) {
        static Outcome of(OwnerAnswer answer) {
            return new Outcome(answer.code().map(OwnerCode::code), answer.detail(), answer.evidence());
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
     * (an interface or configured address) is a container's question only. Anything else is asked
     * as this host's own, as before; the relay asks about nothing else.
     */
    private static boolean hostOwn(HostConfig host, InetAddress address, OwnerCheck owner) {
        if (!owner.dockerNetworks().contains(address)) {
            return true;
        }
        Set<InetAddress> own = new HashSet<>(host.ownAddresses());
        try {
            own.addAll(OwnAddressBook.Interfaces.jdk().addresses());
        } catch (SocketException e) {
            return true;
        }
        return new OwnAddresses(own).contains(address);
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

    private Outcome outcome(HostConfig host, Target parsed) {
        if (manifestDefault) {
            // The relay refuses such a default before it asks the owner check, so this prints no evidence.
            Optional<Verdict.Deny> refusal = new Rules(host).defaultRefusal(parsed);
            if (refusal.isPresent()) {
                return new Outcome(
                        Optional.of(refusal.get().code().code()), refusal.get().detail(), OwnerEvidence.NONE);
            }
        }
        InetAddress address = parsed.literal().orElse(LOCALHOST);
        try (ManagedOwnerCheck owner = OwnerChecks.system(host.owner(), WallProcesses.withSelf())) {
            OwnerQuery query = new OwnerQuery(
                    addon,
                    manifestDefault ? OwnerQuery.Source.DEFAULT : OwnerQuery.Source.OWNER,
                    address,
                    parsed.port(),
                    hostOwn(host, address, owner));
            return Outcome.of(owner.check(query)
                    .completeOnTimeout(
                            OwnerAnswer.deny(
                                    OwnerCode.ERROR, "no answer within " + WAIT_SECONDS + " s", OwnerEvidence.NONE),
                            WAIT_SECONDS,
                            TimeUnit.SECONDS)
                    .join());
        }
    }
}
