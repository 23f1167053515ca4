package io.portcullis.relay.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.portcullis.owner.ManagedOwnerCheck;
import io.portcullis.owner.OwnerChecks;
import io.portcullis.owner.WallProcesses;
import io.portcullis.relay.decide.Decider;
import io.portcullis.relay.decide.OwnAddressBook;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.Rules;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Target;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.resolve.NettyResolver;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
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
            "",
            "A target on this host gets the owner check's real answer, as the relay would give it now.",
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:every target is allowed", "1:some target is denied", "2:usage or configuration error"})
final class CheckCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Spec
    CommandSpec spec;

    @ParentCommand
    Main main;

    @Mixin
    PolicyFiles files;

    @Parameters(
            paramLabel = "TARGET",
            arity = "0..*",
            description = "host:port or http://host[:port]; when none, one per line from standard input.")
    List<String> targets = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        SpawnPolicy spawn;
        HostConfig host;
        List<String> problems = new ArrayList<>();
        spawn = files.spawn(problems);
        host = files.host(problems);
        if (ConfigFiles.report(problems, err)) {
            return 2;
        }
        List<String> input = targets.isEmpty() ? stdin() : targets;
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (NettyResolver resolver = new NettyResolver(group.next(), host.dns());
                OwnAddressBook own = new OwnAddressBook(host, OwnAddressBook.Interfaces.jdk(), resolver);
                ManagedOwnerCheck owner = OwnerChecks.system(host.owner(), WallProcesses.withSelf())) {
            long bound = host.dns().timeout().toMillis() * (host.ownNames().size() + 2) + 5000;
            own.refresh().get(bound, TimeUnit.MILLISECONDS);
            Decider decider = new Decider(new Rules(host), resolver, own, owner);
            boolean denied = false;
            for (String target : input) {
                Verdict verdict = decider.decide(spawn, request(target))
                        .completeOnTimeout(
                                new Verdict.Deny(DenyCode.INTERNAL_ERROR, "no decision in time"),
                                bound,
                                TimeUnit.MILLISECONDS)
                        .join();
                denied |= verdict instanceof Verdict.Deny;
                out.println(line(target, verdict));
                out.flush();
            }
            return denied ? 1 : 0;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            err.println("portcullis check: this host's own addresses could not be read: " + e);
            return 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 2;
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    private List<String> stdin() throws IOException {
        List<String> lines = new ArrayList<>();
        var reader = new BufferedReader(new InputStreamReader(main.stdin(), StandardCharsets.UTF_8));
        for (String line; (line = reader.readLine()) != null; ) {
            if (!line.isBlank()) {
                lines.add(line.strip());
            }
        }
        return lines;
    }

    /** {@code http://host[:port]} is a plain HTTP request; anything else is a CONNECT target. */
    static Request request(String target) {
        if (target.regionMatches(true, 0, "http://", 0, 7)) {
            String authority = target.substring(7);
            if (authority.endsWith("/")) {
                authority = authority.substring(0, authority.length() - 1);
            }
            boolean hasPort = authority.startsWith("[") ? authority.contains("]:") : authority.contains(":");
            return Request.http(hasPort ? authority : authority + ":80");
        }
        return Request.connect(target);
    }

    static String line(String target, Verdict verdict) {
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
            }
            case Verdict.Deny deny -> {
                line.put("verdict", "deny");
                line.put("code", deny.code().code());
                line.set("addresses", addresses);
                line.put("detail", deny.detail());
            }
        }
        return line.toString();
    }
}
