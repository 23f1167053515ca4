package io.portcullis.world;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The no-route-out rule, as a pure function of {@code ip -j route show table all}: a namespace of
 * the world may route only to its own prefixes and link-local space on its own devices, and hold
 * local, broadcast and multicast routes on those devices and {@code lo}. A default route, or a
 * route to anything else, is a problem; so is output that cannot be read.
 */
final class RouteCheck {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> LOCAL_TYPES = Set.of("local", "broadcast", "multicast", "anycast");
    private static final Set<String> DEAD_END_TYPES = Set.of("unreachable", "blackhole", "prohibit", "throw");
    private static final Prefix LINK_LOCAL = Prefix.parse("fe80::/64");

    private RouteCheck() {}

    /** Every problem with the routes in {@code ipJson}, one line each; empty when none. */
    static List<String> problems(String ipJson, Set<String> devices, List<Prefix> prefixes) {
        JsonNode routes;
        try {
            routes = JSON.readTree(ipJson.isBlank() ? "[]" : ipJson);
        } catch (Exception e) {
            return List.of("routes: unreadable ip output (" + e.getMessage() + ")");
        }
        if (!routes.isArray()) {
            return List.of("routes: " + ipJson.strip() + " (expected: a JSON array)");
        }
        List<String> problems = new ArrayList<>();
        for (JsonNode route : routes) {
            problem(route, devices, prefixes).ifPresent(problems::add);
        }
        return problems;
    }

    /** What is wrong with {@code route}; empty when nothing is. */
    private static Optional<String> problem(JsonNode route, Set<String> devices, List<Prefix> prefixes) {
        String type = route.path("type").asText("unicast");
        String dst = route.path("dst").asText("");
        String dev = route.path("dev").asText("");
        if (DEAD_END_TYPES.contains(type)) {
            return Optional.empty();
        }
        if ("default".equals(dst) || dst.endsWith("/0")) {
            return Optional.of("route: " + route + " (expected: no default route)");
        }
        if (!dev.equals("lo") && !devices.contains(dev)) {
            return Optional.of("route: " + route + " (expected: a device of the world: lo, " + devices + ")");
        }
        if (LOCAL_TYPES.contains(type)) {
            return Optional.empty();
        }
        if (!"unicast".equals(type) || !route.path("gateway").isMissingNode()) {
            return Optional.of("route: " + route + " (expected: a directly connected route)");
        }
        if (dev.equals("lo") || !isWorldPrefix(dst, prefixes)) {
            return Optional.of("route: " + route + " (expected: one of " + prefixes + " or " + LINK_LOCAL + ")");
        }
        return Optional.empty();
    }

    private static boolean isWorldPrefix(String dst, List<Prefix> prefixes) {
        Prefix prefix;
        try {
            prefix = dst.contains("/") ? Prefix.parse(dst) : null;
        } catch (IllegalArgumentException e) {
            return false;
        }
        return prefix != null && (prefix.equals(LINK_LOCAL) || prefixes.contains(prefix));
    }
}
