package io.portcullis.relay.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.portcullis.owner.OwnerQuery;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.SpawnPolicy.Door;
import io.portcullis.relay.policy.SpawnPolicy.Entry;
import io.portcullis.relay.policy.SpawnPolicy.Network;
import io.portcullis.relay.policy.SpawnPolicy.Route;
import io.portcullis.relay.policy.SpawnPolicy.Scheme;
import io.portcullis.relay.policy.Target;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;

/** The spawn policy file (SPEC R1) to a {@link SpawnPolicy}, with every problem at once. */
public final class SpawnPolicyJson {
    private static final String ID_CHARS = "[A-Za-z0-9][A-Za-z0-9._-]{0,127}";

    private SpawnPolicyJson() {}

    public static SpawnPolicy read(Path file) throws ConfigException {
        return parse(file.toString(), JsonText.read(file));
    }

    /** @param source names the text in the exception's message, e.g. the file name */
    public static SpawnPolicy parse(String source, String json) throws ConfigException {
        List<String> problems = new ArrayList<>();
        JsonObject top = JsonObject.of(
                        problems,
                        "",
                        JsonText.parse(source, json),
                        "id",
                        "network",
                        "hosts",
                        "proxyPort",
                        "door",
                        "peerUid",
                        "shadow")
                .orElseThrow(() -> new ConfigException(source, problems));
        Optional<String> id = top.text("id", true);
        if (id.isPresent() && !id.get().matches(ID_CHARS)) {
            top.problem("id", top.get("id"), "1-128 letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
        Reach reach = reach(problems, top);
        int proxyPort = (int) top.integer("proxyPort", 1, 65535, SpawnPolicy.DEFAULT_PROXY_PORT);
        Optional<Door> door =
                top.object("door", "port", "routes", "tokenFile", "tokenHeader").flatMap(SpawnPolicyJson::door);
        OptionalInt peerUid = top.integer("peerUid", 0, 0xffff_fffeL)
                .map(uid -> OptionalInt.of(uid.intValue()))
                .orElse(OptionalInt.empty());
        // The shadow (SPEC R26): the same schema without id, of which only what decides is read.
        Optional<Reach> shadow = top.object("shadow", "network", "hosts").map(object -> reach(problems, object));
        door.ifPresent(d -> reach.hosts().stream()
                .filter(entry -> entry.isForward() && entry.target().port() == d.port())
                .forEach(entry -> problems.add("door.port: " + d.port() + " (expected: a port no forward uses; "
                        + entry.target() + " does)")));
        if (!problems.isEmpty()) {
            throw new ConfigException(source, problems);
        }
        try {
            return new SpawnPolicy(
                    id.orElseThrow(),
                    reach.network(),
                    reach.hosts(),
                    proxyPort,
                    door,
                    peerUid,
                    shadow.map(s -> new SpawnPolicy(
                            id.orElseThrow(), s.network(), s.hosts(), proxyPort, Optional.empty(), peerUid)));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(source, List.of(String.valueOf(e.getMessage())));
        }
    }

    /** What decides: the network and the listed hosts, of the policy or of its shadow. */
    private record Reach(Network network, List<Entry> hosts) {}

    private static Reach reach(List<String> problems, JsonObject object) {
        Network network = choice(object, "network", false, Network.values(), Network::json)
                .orElse(Network.LISTED);
        return new Reach(network, checkEntries(problems, object.list("hosts", List.of(), SpawnPolicyJson::entry)));
    }

    /** An entry with the path it was read at. */
    private record Read(String path, Entry entry) {}

    private static Optional<Read> entry(JsonObject.Element element) {
        Optional<JsonObject> read = element.object("target", "scheme", "source");
        if (read.isEmpty()) {
            return Optional.empty();
        }
        JsonObject object = read.get();
        Optional<Target> target = object.parsed("target", true, SpawnPolicyJson::target);
        Optional<Scheme> scheme = choice(object, "scheme", true, Scheme.values(), Scheme::json);
        OwnerQuery.Source source = choice(
                        object,
                        "source",
                        false,
                        OwnerQuery.Source.values(),
                        s -> s.name().toLowerCase(Locale.ROOT))
                .orElse(OwnerQuery.Source.OWNER);
        return object.clean()
                ? Optional.of(new Read(element.path(), new Entry(target.orElseThrow(), scheme.orElseThrow(), source)))
                : Optional.empty();
    }

    private static Target target(String text) {
        int colon = text.lastIndexOf(':');
        if (colon >= 0 && text.indexOf('-', colon) > colon) {
            throw new IllegalArgumentException(new TextNode(text) + " (expected: host:port with one port, no range)");
        }
        return Target.parse(text);
    }

    /** Duplicates by canonical target, and two forwards on one port, are problems. */
    private static List<Entry> checkEntries(List<String> problems, List<Read> read) {
        Map<Target, String> firstAt = new HashMap<>();
        Map<Integer, String> forwardAt = new HashMap<>();
        List<Entry> hosts = new ArrayList<>();
        for (Read r : read) {
            Target target = r.entry().target();
            String first = firstAt.putIfAbsent(target, r.path());
            if (first != null) {
                problems.add(r.path() + ".target: \"" + target + "\" (expected: each target once; " + first
                        + " is the same)");
                continue;
            }
            if (r.entry().isForward()) {
                String other = forwardAt.putIfAbsent(target.port(), r.path());
                if (other != null) {
                    problems.add(r.path() + ".target: \"" + target + "\" (expected: one loopback entry per port; "
                            + other + " forwards port " + target.port() + ")");
                    continue;
                }
            }
            hosts.add(r.entry());
        }
        return hosts;
    }

    private static Optional<Door> door(JsonObject door) {
        Optional<Long> port = door.integer("port", 1, 65535);
        if (door.get("port").isMissingNode()) {
            door.problem(door.at("port"), door.get("port"), "an integer 1-65535");
        }
        List<Route> routes = door.list("routes", List.of(), SpawnPolicyJson::route);
        if (door.get("routes").isMissingNode()) {
            door.problem(door.at("routes"), door.get("routes"), "an array of {\"method\", \"path\"}");
        }
        Optional<Path> tokenFile = door.parsed("tokenFile", true, SpawnPolicyJson::absolutePath);
        Optional<String> header = door.text("tokenHeader", false);
        if (header.isPresent() && !header.get().matches("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}")) {
            door.problem(door.at("tokenHeader"), door.get("tokenHeader"), "an HTTP header name");
        }
        Set<Route> seen = new HashSet<>();
        for (int i = 0; i < routes.size(); i++) {
            if (!seen.add(routes.get(i))) {
                door.problem(
                        door.at("routes") + "[" + i + "]", door.get("routes").get(i), "each route once");
            }
        }
        return door.clean()
                ? Optional.of(new Door(
                        port.orElseThrow().intValue(),
                        routes,
                        tokenFile.orElseThrow(),
                        header.orElse(Door.DEFAULT_TOKEN_HEADER)))
                : Optional.empty();
    }

    private static Optional<Route> route(JsonObject.Element element) {
        Optional<JsonObject> read = element.object("method", "path");
        if (read.isEmpty()) {
            return Optional.empty();
        }
        JsonObject object = read.get();
        Optional<String> method = object.text("method", true);
        if (method.isPresent() && !method.get().matches("[A-Z]{1,16}")) {
            object.problem(object.at("method"), object.get("method"), "an upper-case HTTP method, e.g. GET");
        }
        Optional<String> path = object.text("path", true);
        if (path.isPresent() && !path.get().matches("(/[A-Za-z0-9._~!$&'()*+,;=:@-]+)+/?|/")) {
            object.problem(
                    object.at("path"),
                    object.get("path"),
                    "an exact path: one leading slash, no '*', '%', '?', '#', '.' or '..' segment");
        } else if (path.isPresent() && dotSegment(path.get())) {
            object.problem(object.at("path"), object.get("path"), "an exact path without '.' or '..' segments");
        }
        return object.clean() ? Optional.of(new Route(method.orElseThrow(), path.orElseThrow())) : Optional.empty();
    }

    private static boolean dotSegment(String path) {
        return path.contains("/./") || path.contains("/../") || path.endsWith("/.") || path.endsWith("/..");
    }

    static Path absolutePath(String text) {
        if (text.isEmpty() || text.indexOf('\0') >= 0 || !text.startsWith("/")) {
            throw new IllegalArgumentException(new TextNode(text) + " (expected: an absolute path)");
        }
        return Path.of(text);
    }

    /** One of the enum's JSON names; empty when absent (a problem when {@code required}) or wrong. */
    static <E> Optional<E> choice(
            JsonObject object, String field, boolean required, E[] values, Function<E, String> json) {
        JsonNode value = object.get(field);
        if (value.isMissingNode()) {
            if (required) {
                object.problem(object.at(field), value, names(values, json));
            }
            return Optional.empty();
        }
        for (E candidate : values) {
            if (value.isTextual() && json.apply(candidate).equals(value.textValue())) {
                return Optional.of(candidate);
            }
        }
        object.problem(object.at(field), value, names(values, json));
        return Optional.empty();
    }

    private static <E> String names(E[] values, Function<E, String> json) {
        List<String> names = new ArrayList<>();
        for (E value : values) {
            names.add(json.apply(value));
        }
        return "one of " + String.join(", ", names);
    }
}
