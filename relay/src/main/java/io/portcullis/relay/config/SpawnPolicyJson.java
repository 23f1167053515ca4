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
                "shadow");
        if (top == null) {
            throw new ConfigException(source, problems);
        }
        String id = top.text("id", null, true);
        if (id != null && !id.matches(ID_CHARS)) {
            top.problem("id", top.get("id"), "1-128 letters, digits, '.', '_' or '-', starting with a letter or digit");
            id = null;
        }
        Network network = choice(top, "network", Network.LISTED, Network.values(), Network::json);
        List<Read> read = top.list("hosts", List.of(), SpawnPolicyJson::entry);
        List<Entry> hosts = read == null ? List.of() : checkEntries(problems, read);
        Long proxyPort = top.integer("proxyPort", 1, 65535, (long) SpawnPolicy.DEFAULT_PROXY_PORT);
        Optional<Door> door = top.get("door") != null ? Optional.ofNullable(door(top)) : Optional.empty();
        Long peerUid = top.integer("peerUid", 0, 0xffff_fffeL, null);
        // The shadow (SPEC R26): the same schema without id, of which only what decides is read.
        JsonObject shadowObject = top.object("shadow", "network", "hosts");
        Network shadowNetwork = null;
        List<Entry> shadowHosts = List.of();
        if (shadowObject != null) {
            shadowNetwork = choice(shadowObject, "network", Network.LISTED, Network.values(), Network::json);
            List<Read> shadowRead = shadowObject.list("hosts", List.of(), SpawnPolicyJson::entry);
            shadowHosts = shadowRead == null ? List.of() : checkEntries(problems, shadowRead);
        }
        door.ifPresent(d -> hosts.stream()
                .filter(entry -> entry.isForward() && entry.target().port() == d.port())
                .forEach(entry -> problems.add("door.port: " + d.port() + " (expected: a port no forward uses; "
                        + entry.target() + " does)")));
        if (!problems.isEmpty()) {
            throw new ConfigException(source, problems);
        }
        try {
            OptionalInt uid = peerUid == null ? OptionalInt.empty() : OptionalInt.of(peerUid.intValue());
            Optional<SpawnPolicy> shadow = shadowObject == null
                    ? Optional.empty()
                    : Optional.of(new SpawnPolicy(
                            id, shadowNetwork, shadowHosts, proxyPort.intValue(), Optional.empty(), uid));
            return new SpawnPolicy(id, network, hosts, proxyPort.intValue(), door, uid, shadow);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(source, List.of(e.getMessage()));
        }
    }

    /** An entry with the path it was read at. */
    private record Read(String path, Entry entry) {}

    private static Read entry(JsonObject.Element element) {
        JsonObject object = element.object("target", "scheme", "source");
        if (object == null) {
            return null;
        }
        Target target = object.parsed("target", true, SpawnPolicyJson::target);
        Scheme scheme = choice(object, "scheme", null, Scheme.values(), Scheme::json);
        OwnerQuery.Source source = choice(
                object,
                "source",
                OwnerQuery.Source.OWNER,
                OwnerQuery.Source.values(),
                s -> s.name().toLowerCase(Locale.ROOT));
        return target == null || scheme == null || source == null
                ? null
                : new Read(element.path(), new Entry(target, scheme, source));
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

    private static Door door(JsonObject top) {
        JsonObject door = top.object("door", "port", "routes", "tokenFile", "tokenHeader");
        if (door == null) {
            return null;
        }
        Long port = door.integer("port", 1, 65535, null);
        if (port == null && !door.has("port")) {
            door.problem(door.at("port"), null, "an integer 1-65535");
        }
        List<Route> routes = door.list("routes", null, SpawnPolicyJson::route);
        if (routes == null && !door.has("routes")) {
            door.problem(door.at("routes"), null, "an array of {\"method\", \"path\"}");
        }
        Path tokenFile = door.parsed("tokenFile", true, SpawnPolicyJson::absolutePath);
        String header = door.text("tokenHeader", Door.DEFAULT_TOKEN_HEADER, false);
        if (header != null && !header.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}")) {
            door.problem(door.at("tokenHeader"), door.get("tokenHeader"), "an HTTP header name");
            header = null;
        }
        if (routes != null) {
            Set<Route> seen = new HashSet<>();
            for (int i = 0; i < routes.size(); i++) {
                if (!seen.add(routes.get(i))) {
                    door.problem(
                            door.at("routes") + "[" + i + "]",
                            door.get("routes").get(i),
                            "each route once");
                }
            }
        }
        return port == null || routes == null || tokenFile == null || header == null
                ? null
                : new Door(port.intValue(), routes, tokenFile, header);
    }

    private static Route route(JsonObject.Element element) {
        JsonObject object = element.object("method", "path");
        if (object == null) {
            return null;
        }
        String method = object.text("method", null, true);
        if (method != null && !method.matches("[A-Z]{1,16}")) {
            object.problem(object.at("method"), object.get("method"), "an upper-case HTTP method, e.g. GET");
            method = null;
        }
        String path = object.text("path", null, true);
        if (path != null && !path.matches("(/[A-Za-z0-9._~!$&'()*+,;=:@-]+)+/?|/")) {
            object.problem(
                    object.at("path"),
                    object.get("path"),
                    "an exact path: one leading slash, no '*', '%', '?', '#', '.' or '..' segment");
            path = null;
        } else if (path != null
                && (path.contains("/./") || path.contains("/../") || path.endsWith("/.") || path.endsWith("/.."))) {
            object.problem(object.at("path"), object.get("path"), "an exact path without '.' or '..' segments");
            path = null;
        }
        return method == null || path == null ? null : new Route(method, path);
    }

    static Path absolutePath(String text) {
        if (text.isEmpty() || text.indexOf('\0') >= 0 || !text.startsWith("/")) {
            throw new IllegalArgumentException(new TextNode(text) + " (expected: an absolute path)");
        }
        return Path.of(text);
    }

    /** One of the enum's JSON names; {@code fallback} when absent (a problem when that is null). */
    static <E> E choice(JsonObject object, String field, E fallback, E[] values, Function<E, String> json) {
        if (object.get(field) == null) {
            if (fallback == null) {
                object.problem(object.at(field), null, names(values, json));
            }
            return fallback;
        }
        JsonNode value = object.get(field);
        for (E candidate : values) {
            if (value.isTextual() && json.apply(candidate).equals(value.textValue())) {
                return candidate;
            }
        }
        object.problem(object.at(field), value, names(values, json));
        return null;
    }

    private static <E> String names(E[] values, Function<E, String> json) {
        List<String> names = new ArrayList<>();
        for (E value : values) {
            names.add(json.apply(value));
        }
        return "one of " + String.join(", ", names);
    }
}
