package io.portcullis.daemon;

import static io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.CONFLICT;
import static io.netty.handler.codec.http.HttpResponseStatus.CREATED;
import static io.netty.handler.codec.http.HttpResponseStatus.GONE;
import static io.netty.handler.codec.http.HttpResponseStatus.INTERNAL_SERVER_ERROR;
import static io.netty.handler.codec.http.HttpResponseStatus.NOT_FOUND;
import static io.netty.handler.codec.http.HttpResponseStatus.OK;
import static io.netty.handler.codec.http.HttpResponseStatus.SERVICE_UNAVAILABLE;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.HttpMethod;
import io.portcullis.relay.Relay;
import io.portcullis.relay.SpawnHandle;
import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.handoff.HandoffRefused;
import io.portcullis.relay.ops.Reply;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.policy.SpawnPolicy;
import java.io.IOException;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control API over the relay: one method per route, each returning its {@link Reply}. Runs on
 * the daemon's control thread, one request at a time, because opening and closing a spawn wait for
 * the event loops.
 */
final class Control {
    private static final Logger log = LoggerFactory.getLogger(Control.class);
    private static final String SPAWNS = "/spawns";
    private static final String SPAWN_PREFIX = "/spawns/";

    private final Relay relay;
    private final HostConfigSource hosts;
    private final Removed removed;
    private final Keeper keeper;
    /** The JSON text each open spawn was opened with, by id: what an upgrade carries (SPEC R44). */
    private final Map<String, String> policies = new ConcurrentHashMap<>();
    /** The successor that serves the control socket since an upgrade (SPEC R44); 0 before. */
    private volatile long successor;

    Control(Relay relay, HostConfigSource hosts, InstantSource clock) {
        this(relay, hosts, clock, Keeper.NONE);
    }

    /** @param keeper told of each spawn opened and closed, to keep it beyond this process */
    Control(Relay relay, HostConfigSource hosts, InstantSource clock, Keeper keeper) {
        this.relay = Objects.requireNonNull(relay, "relay");
        this.hosts = Objects.requireNonNull(hosts, "hosts");
        this.removed = new Removed(clock);
        this.keeper = Objects.requireNonNull(keeper, "keeper");
    }

    /** Takes the text of spawns restored in an upgrade, by id. */
    void adopt(Map<String, String> restored) {
        policies.putAll(restored);
    }

    /** The JSON text each open spawn was opened with, by id. */
    Map<String, String> policies() {
        policies.keySet().removeIf(id -> relay.spawn(id).isEmpty());
        return Map.copyOf(policies);
    }

    /** From now on every route says that pid {@code pid} serves the control socket. */
    void upgraded(long pid) {
        successor = pid;
    }

    /** {@code 503} once upgraded: the request reached this daemon before the successor took the path. */
    Optional<Reply> upgradedAnswer() {
        long pid = successor;
        return pid == 0
                ? Optional.empty()
                : Optional.of(Reply.errors(
                        SERVICE_UNAVAILABLE,
                        List.of("daemon: upgraded; pid " + pid
                                + " serves the control socket now (expected: the same request again)")));
    }

    /** The answer to {@code method path} with {@code body} (UTF-8). */
    Reply handle(HttpMethod method, String path, String body) {
        Optional<Reply> upgraded = upgradedAnswer();
        if (upgraded.isPresent()) {
            return upgraded.get();
        }
        if (path.equals(SPAWNS)) {
            return method.equals(HttpMethod.POST)
                    ? open(body)
                    : method.equals(HttpMethod.GET)
                            ? Reply.json(OK, SpawnJson.list(open()))
                            : Reply.notAllowed("GET, POST");
        }
        if (path.startsWith(SPAWN_PREFIX)
                && path.length() > SPAWN_PREFIX.length()
                && path.indexOf('/', SPAWN_PREFIX.length()) < 0) {
            String id = path.substring(SPAWN_PREFIX.length());
            if (method.equals(HttpMethod.GET)) {
                return show(id);
            }
            if (method.equals(HttpMethod.PUT)) {
                return update(id, body);
            }
            return method.equals(HttpMethod.DELETE) ? close(id) : Reply.notAllowed("GET, PUT, DELETE");
        }
        if (path.equals("/reload")) {
            return method.equals(HttpMethod.POST) ? reload() : Reply.notAllowed("POST");
        }
        return Reply.errors(
                NOT_FOUND,
                List.of("path: " + path
                        + " (expected: /spawns, /spawns/{id}, /reload, /upgrade, /metrics, /healthz or /readyz)"));
    }

    private Reply open(String body) {
        SpawnPolicy policy;
        JsonNode json;
        try {
            policy = SpawnPolicyJson.parse("spawn", body);
            json = SpawnJson.JSON.readTree(body);
        } catch (ConfigException e) {
            return Reply.errors(BAD_REQUEST, e.problems());
        } catch (JsonProcessingException e) {
            return Reply.errors(BAD_REQUEST, List.of("spawn: " + e.getOriginalMessage()));
        }
        if (!relay.accepting()) {
            return Reply.errors(
                    SERVICE_UNAVAILABLE, List.of("daemon: draining (expected: a daemon that takes new spawns)"));
        }
        if (relay.spawn(policy.id()).isPresent()) {
            return Reply.errors(CONFLICT, List.of("id: " + policy.id() + " (expected: not the id of an open spawn)"));
        }
        try {
            SpawnHandle handle = relay.open(policy);
            policies.put(handle.id(), body);
            removed.forget(handle.id());
            handle.handedOver().whenComplete((accepted, failure) -> refused(handle.id(), failure));
            keeper.opened(handle, json);
            log.atInfo()
                    .addKeyValue("spawn", handle.id())
                    .addKeyValue("socket", handle.socket())
                    .log("spawn opened");
            ObjectNode answer = SpawnJson.JSON.createObjectNode();
            answer.put("id", handle.id());
            answer.setAll(SpawnJson.opened(handle));
            return Reply.json(CREATED, answer);
        } catch (IllegalStateException e) {
            return Reply.errors(relay.accepting() ? CONFLICT : SERVICE_UNAVAILABLE, List.of(e.getMessage()));
        } catch (IOException | RuntimeException e) {
            log.warn("spawn {}: cannot open: {}", policy.id(), e.toString());
            return Reply.errors(
                    INTERNAL_SERVER_ERROR, List.of("spawn " + policy.id() + ": cannot open: " + e.getMessage()));
        }
    }

    /**
     * A hand-over the relay refused: the relay closes the spawn (its socket was used up), and the
     * API says why from now on. On the event loop that refused it.
     */
    private void refused(String id, Throwable failure) {
        if (failure instanceof CompletionException wrapped && wrapped.getCause() instanceof HandoffRefused refusal) {
            removed.add(id, DenyCode.BAD_HANDOFF.code(), refusal.reason());
            log.atInfo()
                    .addKeyValue("spawn", id)
                    .addKeyValue("code", DenyCode.BAD_HANDOFF.code())
                    .addKeyValue("reason", refusal.reason())
                    .log("spawn removed: its hand-over was refused");
        }
    }

    /** The open spawns, without those whose hand-over was refused and that the relay is closing. */
    private List<SpawnHandle> open() {
        return relay.spawns().stream()
                .filter(handle -> removed.get(handle.id()).isEmpty())
                .toList();
    }

    private Reply show(String id) {
        Optional<Removed.Spawn> gone = removed.get(id);
        if (gone.isPresent()) {
            return gone(gone.get());
        }
        Optional<SpawnHandle> handle = relay.spawn(id);
        return handle.isPresent() ? Reply.json(OK, SpawnJson.described(handle.get())) : unknown(id);
    }

    /**
     * A new policy for the open spawn {@code id} (SPEC R5), in effect for its new connections; its
     * open ones keep theirs. Refused whole ({@code 400}, every problem named) when the body is not a
     * policy, names another id, or changes what the spawn's sockets are.
     */
    private Reply update(String id, String body) {
        Optional<Removed.Spawn> gone = removed.get(id);
        if (gone.isPresent()) {
            return gone(gone.get());
        }
        Optional<SpawnHandle> handle = relay.spawn(id);
        if (handle.isEmpty()) {
            return unknown(id);
        }
        try {
            handle.get().update(SpawnPolicyJson.parse("spawn", body));
            policies.put(id, body);
            keeper.updated(id, SpawnJson.JSON.readTree(body));
        } catch (ConfigException e) {
            return Reply.errors(BAD_REQUEST, e.problems());
        } catch (JsonProcessingException e) {
            return Reply.errors(BAD_REQUEST, List.of("spawn: " + e.getOriginalMessage()));
        } catch (IllegalStateException e) {
            return unknown(id);
        }
        return Reply.json(OK, SpawnJson.described(handle.get()));
    }

    private Reply close(String id) {
        Optional<Removed.Spawn> gone = removed.get(id);
        Optional<SpawnHandle> handle = relay.spawn(id);
        if (gone.isPresent()) {
            handle.ifPresent(SpawnHandle::close);
            return gone(gone.get());
        }
        if (handle.isEmpty()) {
            return unknown(id);
        }
        try {
            keeper.closing(id);
            handle.get().close();
            log.atInfo().addKeyValue("spawn", id).log("spawn closed");
            return Reply.noContent();
        } catch (RuntimeException e) {
            log.warn("spawn {}: while closing: {}", id, e.toString());
            return Reply.errors(INTERNAL_SERVER_ERROR, List.of("spawn " + id + ": " + e.getMessage()));
        }
    }

    /** Reads the host configuration again; a bad one keeps the generation in effect. */
    Reply reload() {
        HostConfig host;
        try {
            host = hosts.read();
        } catch (ConfigException e) {
            relay.metrics().reloaded(false);
            log.warn("reload refused, generation {} stays: {}", relay.generation(), String.join("; ", e.problems()));
            return reloadRefused(e.problems());
        }
        try {
            long generation = relay.reload(host);
            ObjectNode answer = SpawnJson.JSON.createObjectNode();
            answer.put("generation", generation);
            return Reply.json(OK, answer);
        } catch (IOException | RuntimeException e) {
            log.warn("reload failed, generation {} stays: {}", relay.generation(), e.toString());
            return reloadRefused(List.of(String.valueOf(e.getMessage())));
        }
    }

    private Reply reloadRefused(List<String> problems) {
        ObjectNode body = SpawnJson.JSON.createObjectNode();
        problems.forEach(body.putArray("errors")::add);
        body.put("generation", relay.generation());
        return Reply.json(BAD_REQUEST, body);
    }

    /**
     * {@code 410}: the spawn was removed because its hand-over was refused; the body says why
     * ({@code code}, {@code reason}, {@code removed}) beside the usual {@code errors}.
     */
    private static Reply gone(Removed.Spawn spawn) {
        ObjectNode body = SpawnJson.JSON.createObjectNode();
        body.putArray("errors")
                .add("spawn: " + spawn.id() + " (expected: an open spawn; it was removed: its hand-over was refused: "
                        + spawn.reason() + ")");
        body.put("id", spawn.id());
        body.put("code", spawn.code());
        body.put("reason", spawn.reason());
        body.put("removed", spawn.at().toString());
        return Reply.json(GONE, body);
    }

    private static Reply unknown(String id) {
        return Reply.errors(NOT_FOUND, List.of("spawn: " + id + " (expected: the id of an open spawn)"));
    }
}
