package io.portcullis.relay.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.portcullis.owner.OwnerConfig;
import io.portcullis.relay.policy.Cidr;
import io.portcullis.relay.policy.DenyList;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.Target;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** The host configuration file (SPEC R2) to a {@link HostConfig}, with every problem at once. */
public final class HostConfigJson {
    private static final long MAX_MILLIS = 86_400_000L;

    private HostConfigJson() {}

    public static HostConfig read(Path file) throws ConfigException {
        return read(file, HostConfig.DEFAULTS);
    }

    /** As {@link #read(Path)}; what the file leaves out comes from {@code defaults}. */
    public static HostConfig read(Path file, HostConfig defaults) throws ConfigException {
        return parse(file.toString(), JsonText.read(file), defaults);
    }

    /** @param source names the text in the exception's message, e.g. the file name */
    public static HostConfig parse(String source, String json) throws ConfigException {
        return parse(source, json, HostConfig.DEFAULTS);
    }

    /**
     * As {@link #parse(String, String)}; each field the text leaves out, at any depth, takes its
     * value from {@code defaults} ({@code portcullis run} passes the invoking uid as the gateway's).
     */
    public static HostConfig parse(String source, String json, HostConfig defaults) throws ConfigException {
        List<String> problems = new ArrayList<>();
        JsonObject top = JsonObject.of(
                        problems,
                        "",
                        JsonText.parse(source, json),
                        "denyList",
                        "ownNames",
                        "ownAddresses",
                        "dns",
                        "owner",
                        "limits",
                        "log",
                        "upstream",
                        "handoff")
                .orElseThrow(() -> new ConfigException(source, problems));
        List<Cidr> deny = top.strings("denyList", defaults.denyList().blocks(), Cidr::parse);
        List<String> ownNames = top.strings("ownNames", defaults.ownNames(), HostConfigJson::name);
        List<InetAddress> ownAddresses = top.strings("ownAddresses", defaults.ownAddresses(), HostConfigJson::address);
        HostConfig.Dns dns = dns(top, defaults.dns());
        OwnerConfig owner = owner(top, defaults.owner());
        HostConfig.Limits limits = limits(top, defaults.limits());
        HostConfig.Log log = log(top, defaults.log());
        Optional<HostConfig.Upstream> upstream = upstream(top, defaults.upstream());
        HostConfig.HandoffRules handoff = handoff(top, defaults.handoff());
        // The proxy's address is checked against the deny list once the whole file read cleanly.
        Optional<InetAddress> proxy = upstream.flatMap(u -> u.proxy().literal());
        if (problems.isEmpty() && proxy.isPresent()) {
            new DenyList(deny)
                    .matchAnyForm(proxy.get())
                    .ifPresent(block ->
                            problems.add("upstream.proxy: " + upstream.get().proxy()
                                    + " (expected: an address outside the deny list; it is in " + block + ")"));
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(source, problems);
        }
        try {
            return new HostConfig(
                    new DenyList(deny), ownNames, ownAddresses, dns, owner, limits, log, upstream, handoff);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(source, List.of(String.valueOf(e.getMessage())));
        }
    }

    private static String name(String text) {
        Target target;
        try {
            target = Target.parse(text + ":1");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    new TextNode(text) + " (expected: one exact DNS name, e.g. gate.example)", e);
        }
        if (!target.isName()) {
            throw new IllegalArgumentException(
                    new TextNode(text) + " (expected: a DNS name; addresses go in ownAddresses)");
        }
        return target.host();
    }

    private static InetAddress address(String text) {
        Cidr one = Cidr.parse(text);
        if (one.prefix() != one.network().getAddress().length * 8 || text.indexOf('/') >= 0) {
            throw new IllegalArgumentException(new TextNode(text) + " (expected: one address, no prefix)");
        }
        return one.network();
    }

    private static InetSocketAddress server(String text) {
        IllegalArgumentException wrong = new IllegalArgumentException(
                new TextNode(text) + " (expected: ip:port, e.g. 127.0.0.53:53 or [::1]:53)");
        Target target;
        try {
            target = Target.parse(text);
        } catch (IllegalArgumentException e) {
            wrong.initCause(e);
            throw wrong;
        }
        return new InetSocketAddress(target.literal().orElseThrow(() -> wrong), target.port());
    }

    private static HostConfig.Dns dns(JsonObject top, HostConfig.Dns d) {
        Optional<JsonObject> read = top.object("dns", "servers", "timeoutMillis", "uids");
        if (read.isEmpty()) {
            return d;
        }
        JsonObject dns = read.get();
        List<InetSocketAddress> servers = dns.strings("servers", d.servers(), HostConfigJson::server);
        Duration timeout = millis(dns, "timeoutMillis", d.timeout());
        HostConfig.HolderUids uids = uids(dns, d.uids());
        return dns.clean() ? new HostConfig.Dns(servers, timeout, uids) : d;
    }

    /**
     * The {@code uids} that may hold a local server's port (R25): a non-empty array of distinct
     * uids, or {@code fallback} when absent or wrong.
     */
    private static HostConfig.HolderUids uids(JsonObject object, HostConfig.HolderUids fallback) {
        JsonNode value = object.get("uids");
        if (value.isMissingNode()) {
            return fallback;
        }
        List<Long> uids = object.list("uids", List.of(), HostConfigJson::uid);
        if (!value.isArray() || uids.size() != value.size()) {
            return fallback; // a problem already
        }
        if (uids.isEmpty()) {
            object.problem(object.at("uids"), object.get("uids"), "at least one uid, e.g. [0, 991]");
            return fallback;
        }
        Set<Integer> distinct = new LinkedHashSet<>();
        for (int i = 0; i < uids.size(); i++) {
            if (!distinct.add(uids.get(i).intValue())) {
                object.problem(
                        object.at("uids") + "[" + i + "]", object.get("uids").get(i), "each uid once");
                return fallback;
            }
        }
        return new HostConfig.HolderUids(Optional.of(distinct));
    }

    private static Optional<Long> uid(JsonObject.Element element) {
        JsonNode node = element.node();
        if (!node.isIntegralNumber()
                || !node.canConvertToLong()
                || node.longValue() < 0
                || node.longValue() > 0xffff_fffeL) {
            element.problems().add(element.path() + ": " + JsonObject.show(node) + " (expected: a uid 0-4294967294)");
            return Optional.empty();
        }
        return Optional.of(node.longValue());
    }

    private static HostConfig.Limits limits(JsonObject top, HostConfig.Limits d) {
        Optional<JsonObject> read = top.object(
                "limits",
                "headerBytes",
                "headerTimeoutMillis",
                "connectTimeoutMillis",
                "idleTimeoutMillis",
                "spawnConnections",
                "relayConnections",
                "doorBodyBytes",
                "httpRequestBytes",
                "httpResponseBytes",
                "httpTotalMillis",
                "spawnRate",
                "spawnBurst");
        if (read.isEmpty()) {
            return d;
        }
        JsonObject limits = read.get();
        long headerBytes = limits.integer("headerBytes", 256, 1 << 20, d.headerBytes());
        Duration headerTimeout = millis(limits, "headerTimeoutMillis", d.headerTimeout());
        Duration connectTimeout = millis(limits, "connectTimeoutMillis", d.connectTimeout());
        Duration idleTimeout = millis(limits, "idleTimeoutMillis", d.idleTimeout());
        long spawn = limits.integer("spawnConnections", 1, 1_000_000, d.spawnConnections());
        long relay = limits.integer("relayConnections", 1, 10_000_000, d.relayConnections());
        long body = limits.integer("doorBodyBytes", 0, 1L << 30, d.doorBodyBytes());
        long request = limits.integer("httpRequestBytes", 1, 1L << 40, d.httpRequestBytes());
        long response = limits.integer("httpResponseBytes", 1, 1L << 40, d.httpResponseBytes());
        Duration total = millis(limits, "httpTotalMillis", d.httpTotal());
        long rate = limits.integer("spawnRate", 1, 1_000_000, d.spawnRate());
        long burst = limits.integer("spawnBurst", 1, 10_000_000, d.spawnBurst());
        if (!limits.clean()) {
            return d;
        }
        if (body == 0) {
            limits.problem(limits.at("doorBodyBytes"), limits.get("doorBodyBytes"), "an integer 1-" + (1L << 30));
            return d;
        }
        return new HostConfig.Limits(
                (int) headerBytes,
                headerTimeout,
                connectTimeout,
                idleTimeout,
                (int) spawn,
                (int) relay,
                (int) body,
                request,
                response,
                total,
                (int) rate,
                (int) burst);
    }

    private static HostConfig.Log log(JsonObject top, HostConfig.Log d) {
        return top.object("log", "file")
                .flatMap(log -> log.parsed("file", false, SpawnPolicyJson::absolutePath))
                .map(file -> new HostConfig.Log(Optional.of(file)))
                .orElse(d);
    }

    private static HostConfig.HandoffRules handoff(JsonObject top, HostConfig.HandoffRules d) {
        return top.object("handoff", "allowSharedPidNamespace")
                .map(handoff -> new HostConfig.HandoffRules(
                        handoff.flag("allowSharedPidNamespace", d.allowSharedPidNamespace())))
                .orElse(d);
    }

    /** The upstream proxy (R25); empty when absent, {@code d} when wrong. */
    private static Optional<HostConfig.Upstream> upstream(JsonObject top, Optional<HostConfig.Upstream> d) {
        Optional<JsonObject> read = top.object("upstream", "proxy", "credentialsFile", "bypass", "sendNames", "uids");
        if (read.isEmpty()) {
            return d;
        }
        JsonObject upstream = read.get();
        Optional<Target> proxy = upstream.parsed("proxy", true, HostConfigJson::proxy);
        Optional<String> authorization = upstream.parsed("credentialsFile", false, SpawnPolicyJson::absolutePath)
                .flatMap(credentials -> authorization(upstream, credentials));
        List<Object> bypass = upstream.strings("bypass", List.of(), HostConfigJson::bypass);
        boolean sendNames = upstream.flag("sendNames", false);
        HostConfig.HolderUids uids = uids(upstream, HostConfig.HolderUids.DEFAULT);
        if (!upstream.clean()) {
            return d;
        }
        List<Cidr> blocks = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (Object one : bypass) {
            if (one instanceof Cidr block) {
                blocks.add(block);
            } else {
                names.add((String) one);
            }
        }
        return Optional.of(new HostConfig.Upstream(proxy.orElseThrow(), authorization, blocks, names, sendNames, uids));
    }

    /** The credentials file's Proxy-Authorization value; empty (with a problem) when it cannot be read. */
    private static Optional<String> authorization(JsonObject upstream, Path credentials) {
        try {
            return Optional.of(UpstreamCredentials.read(credentials));
        } catch (IllegalArgumentException e) {
            upstream.problem(
                    upstream.at("credentialsFile"), upstream.get("credentialsFile"), String.valueOf(e.getMessage()));
            return Optional.empty();
        }
    }

    private static Target proxy(String text) {
        String expected = " (expected: http://host:port, e.g. http://proxy.corp.example:3128)";
        if (!text.regionMatches(true, 0, "http://", 0, 7)) {
            throw new IllegalArgumentException(new TextNode(text) + expected);
        }
        String authority = text.substring(7);
        if (authority.endsWith("/")) {
            authority = authority.substring(0, authority.length() - 1);
        }
        if (authority.indexOf('@') >= 0) {
            throw new IllegalArgumentException(
                    new TextNode(text) + " (expected: no credentials in the address; they go in credentialsFile)");
        }
        try {
            return Target.parse(authority);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(new TextNode(text) + expected, e);
        }
    }

    /** A bypass entry: a {@link Cidr} for an address or block, else an exact name. */
    private static Object bypass(String text) {
        if (text.indexOf('/') >= 0 || text.indexOf(':') >= 0 || text.matches("[0-9.]+")) {
            try {
                return Cidr.parse(text.indexOf('/') >= 0 ? text : text + (text.indexOf(':') >= 0 ? "/128" : "/32"));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        new TextNode(text) + " (expected: an address, a block such as 10.0.0.0/8, or an exact name)",
                        e);
            }
        }
        return name(text);
    }

    private static Duration millis(JsonObject object, String field, Duration fallback) {
        return Duration.ofMillis(object.integer(field, 1, MAX_MILLIS, fallback.toMillis()));
    }

    private static OwnerConfig owner(JsonObject top, OwnerConfig d) {
        Optional<JsonObject> read = top.object(
                "owner",
                "gatewayUid",
                "gatewayPort",
                "roots",
                "signatures",
                "addons",
                "bundleDirs",
                "exceptions",
                "docker",
                "cacheMillis");
        if (read.isEmpty()) {
            return d;
        }
        JsonObject owner = read.get();
        long uid = owner.integer("gatewayUid", -1, 0xffff_fffeL, d.gatewayUid());
        long port = owner.integer("gatewayPort", 0, 65535, d.gatewayPort());
        List<Path> roots = owner.strings("roots", d.roots(), SpawnPolicyJson::absolutePath);
        List<OwnerConfig.Signature> signatures = owner.list("signatures", d.signatures(), HostConfigJson::signature);
        List<String> addons = owner.strings("addons", List.copyOf(d.addons()), HostConfigJson::addonId);
        List<Path> bundleDirs = owner.strings("bundleDirs", d.bundleDirs(), SpawnPolicyJson::absolutePath);
        Map<String, Set<String>> exceptions = exceptions(owner, d.exceptions());
        Optional<String> docker = owner.text("docker", false);
        if (docker.isPresent() && !docker.get().matches("(unix|tcp|npipe)://\\S+")) {
            owner.problem(owner.at("docker"), owner.get("docker"), "unix:///path/to/docker.sock or tcp://host:port");
        }
        long cache = owner.integer("cacheMillis", 0, 60_000, d.cacheWindow().toMillis());
        noDuplicates(owner, "addons", addons);
        if (!owner.clean()) {
            return d;
        }
        return new OwnerConfig(
                (int) uid,
                (int) port,
                roots,
                signatures,
                new LinkedHashSet<>(addons),
                bundleDirs,
                exceptions,
                docker.orElse(d.dockerEndpoint()),
                Duration.ofMillis(cache));
    }

    private static void noDuplicates(JsonObject object, String field, List<String> values) {
        Set<String> seen = new LinkedHashSet<>();
        for (int i = 0; i < values.size(); i++) {
            if (!seen.add(values.get(i))) {
                object.problem(object.at(field) + "[" + i + "]", new TextNode(values.get(i)), "each value once");
            }
        }
    }

    private static String addonId(String text) {
        if (!text.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,127}")) {
            throw new IllegalArgumentException(
                    new TextNode(text) + " (expected: an add-on id of letters, digits, '.', '_' or '-')");
        }
        return text;
    }

    /** The add-on exceptions, or {@code d} when absent or wrong. */
    private static Map<String, Set<String>> exceptions(JsonObject owner, Map<String, Set<String>> d) {
        Optional<JsonObject> read = owner.map("exceptions");
        if (read.isEmpty()) {
            return d;
        }
        JsonObject exceptions = read.get();
        Map<String, Set<String>> out = new LinkedHashMap<>();
        for (var names = owner.get("exceptions").fieldNames(); names.hasNext(); ) {
            String addon = names.next();
            try {
                addonId(addon);
            } catch (IllegalArgumentException e) {
                exceptions.problem(exceptions.at(addon), MissingNode.getInstance(), "an add-on id as the key");
                continue;
            }
            out.put(addon, new LinkedHashSet<>(exceptions.strings(addon, List.of(), HostConfigJson::addonId)));
        }
        return exceptions.clean() ? out : d;
    }

    private static Optional<OwnerConfig.Signature> signature(JsonObject.Element element) {
        Optional<JsonObject> read = element.object("name", "argv", "exe");
        if (read.isEmpty()) {
            return Optional.empty();
        }
        JsonObject object = read.get();
        Optional<String> name = object.text("name", true);
        Optional<Pattern> argv = object.parsed("argv", false, HostConfigJson::regex);
        Optional<Pattern> exe = object.parsed("exe", false, HostConfigJson::regex);
        if (!object.has("argv") && !object.has("exe")) {
            object.problem(element.path(), element.node(), "an argv or exe pattern, or both");
        }
        return object.clean()
                ? Optional.of(new OwnerConfig.Signature(name.orElseThrow(), argv, exe))
                : Optional.empty();
    }

    private static Pattern regex(String text) {
        try {
            return Pattern.compile(text);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException(
                    new TextNode(text) + " (expected: a Java regular expression: " + e.getDescription() + ")", e);
        }
    }
}
