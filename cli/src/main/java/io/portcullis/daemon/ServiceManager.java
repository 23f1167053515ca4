package io.portcullis.daemon;

import com.fasterxml.jackson.databind.JsonNode;
import io.portcullis.relay.Relay;
import io.portcullis.relay.SpawnHandle;
import io.portcullis.wire.ListenFds;
import io.portcullis.wire.Notify;
import io.portcullis.wire.Posix;
import io.portcullis.wire.Receiver;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon under systemd (SPEC R44): it tells the service manager when it serves and when it
 * stops ({@link Notify}), and keeps every serving spawn beyond its own process: the spawn's
 * listening sockets in the service's descriptor store, each under its {@link StoreName}, and what
 * else a new process needs to serve them (its policy, its namespace) in the service's state
 * directory ({@link SpawnState}). After a crash, an out-of-memory kill or a restart, the manager
 * passes the sockets back and {@link #restore} serves each spawn again ({@link StoredSpawns}).
 *
 * <p>A spawn is kept once its hand-over is accepted: its state file is written first, then its
 * sockets are stored, one message each. It is let go (state file removed, then {@code
 * FDSTOREREMOVE=1} for each name) before the control API closes it. A crash between two steps
 * leaves a state without all of its sockets, or sockets without a state, which the next start
 * closes and removes. The store holds at most {@code FDSTORE} descriptors (the unit's {@code
 * FileDescriptorStoreMax=}): a spawn whose sockets do not fit is served but not kept, and the log
 * says so.
 */
public final class ServiceManager implements Keeper, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ServiceManager.class);

    private final Notify notify;
    private final Optional<StateDirectory> states;
    private final int capacity;
    private final List<ListenFds.Passed> passed;
    private final Map<String, Kept> kept = new LinkedHashMap<>();
    /** Policies given by a {@code PUT} to spawns not kept yet, by id: what they are kept with. */
    private final Map<String, JsonNode> newer = new LinkedHashMap<>();

    private int stored;
    private int restored;
    private final ExecutorService thread = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().name("fdstore").daemon(true).factory());

    /** A kept spawn: its handle and the names its sockets are stored under. */
    private record Kept(SpawnHandle spawn, List<StoreName> names, SpawnState state) {}

    /**
     * @param states the service's state directory ({@code $STATE_DIRECTORY}); without one nothing is kept
     * @param capacity how many descriptors the store takes ({@code $FDSTORE}); 0: nothing is kept
     * @param passed what the store passed back at this start
     */
    ServiceManager(Notify notify, Optional<Path> states, int capacity, List<ListenFds.Passed> passed) {
        this.notify = Objects.requireNonNull(notify, "notify");
        this.states = states.map(StateDirectory::new);
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity: " + capacity + " (expected: >= 0)");
        }
        this.capacity = capacity;
        this.passed = List.copyOf(passed);
    }

    /**
     * The service manager that {@code environment} names ({@code NOTIFY_SOCKET}), with the
     * descriptors it passed back to this process ({@code LISTEN_FDS}, taken: marked close-on-exec
     * and the variables removed), its state directory ({@code STATE_DIRECTORY}, the first where it
     * names several) and the store's size ({@code FDSTORE}); empty when no manager runs the daemon.
     *
     * @throws IllegalArgumentException when the variables are not the manager's
     */
    public static Optional<ServiceManager> open(Map<String, String> environment) throws IOException {
        Optional<Notify> notify = Notify.from(environment);
        if (notify.isEmpty()) {
            return Optional.empty();
        }
        List<ListenFds.Passed> passed = ListenFds.adopt(environment);
        Posix.unsetenv(Notify.ENVIRONMENT);
        Optional<Path> states = Optional.ofNullable(environment.get("STATE_DIRECTORY"))
                .filter(value -> !value.isEmpty())
                .map(value -> Path.of(value.split(":", -1)[0]));
        String size = environment.getOrDefault("FDSTORE", "0");
        if (!size.matches("[0-9]{1,9}")) {
            throw new IllegalArgumentException("FDSTORE: " + size + " (expected: a number)");
        }
        int capacity = Integer.parseInt(size);
        if (states.isEmpty() || capacity == 0) {
            log.warn(
                    "spawns end with this process: the service has {} (expected: StateDirectory= and"
                            + " FileDescriptorStoreMax= in its unit)",
                    states.isEmpty() ? "no state directory" : "no descriptor store");
        }
        return Optional.of(new ServiceManager(notify.get(), states, capacity, passed));
    }

    /**
     * Serves again every spawn that the store passed back with its state, before the control
     * socket listens; closes and removes, with one warning each, whatever is not a whole spawn.
     *
     * @return how many spawns serve again
     */
    public synchronized int restore(Relay relay) throws IOException {
        List<StateDirectory.Entry> entries = states.isPresent() ? states.get().read() : List.of();
        StoredSpawns found = StoredSpawns.sort(passed, entries);
        for (StoredSpawns.Whole whole : found.whole()) {
            restore(relay, whole);
        }
        for (StoredSpawns.Part part : found.parts()) {
            discard(part.id(), part.names(), part.fds(), part.why());
        }
        restored = kept.size();
        return restored;
    }

    private void restore(Relay relay, StoredSpawns.Whole whole) {
        List<StoreName> names = whole.state().names(whole.id());
        SpawnHandle spawn;
        try {
            spawn = relay.restore(
                    whole.policy(),
                    new Receiver.Carried(
                            new Receiver.Origin(
                                    whole.state().inode(), whole.state().cookie()),
                            whole.held()));
        } catch (IOException | RuntimeException e) {
            // The relay closed the descriptors it refused.
            discard(
                    whole.id(),
                    names.stream().map(StoreName::text).toList(),
                    List.of(),
                    "the relay refused its sockets: " + e.getMessage());
            return;
        }
        kept.put(whole.id(), new Kept(spawn, names, whole.state()));
        stored += names.size();
        log.atInfo()
                .addKeyValue("spawn", whole.id())
                .addKeyValue("sockets", names.size())
                .addKeyValue("namespace", "net:[" + whole.state().inode() + "]")
                .log("spawn restored from the service's descriptor store: it serves again with its policy");
    }

    /**
     * Closes descriptors, removes their names from the store and, unless the spawn serves again
     * (these were extra), its state, and says why. A removal that fails is logged; the start goes on.
     */
    private void discard(String id, List<String> names, List<Integer> fds, String why) {
        fds.forEach(Posix::closeQuietly);
        try {
            if (!id.isEmpty() && !kept.containsKey(id) && states.isPresent()) {
                states.get().remove(id);
            }
            for (String name : names) {
                notify.remove(name);
            }
        } catch (IOException | RuntimeException e) {
            log.warn("{}: could not remove it from the service's store: {}", id, e.toString());
        }
        log.atWarn()
                .addKeyValue("spawn", id)
                .addKeyValue("descriptors", fds.size())
                .log(
                        "{} cannot be restored: {}; its descriptors are closed and removed from the store, and its"
                                + " state",
                        id.isEmpty() ? "a descriptor of the store" : "spawn " + id,
                        why);
    }

    /** Keeps {@code spawn} once it serves, on this manager's own thread (files and messages block). */
    @Override
    public void opened(SpawnHandle spawn, JsonNode policy) {
        spawn.handedOver().thenRun(() -> {
            try {
                thread.execute(() -> keep(spawn, policy));
            } catch (RejectedExecutionException closing) {
                // The daemon is stopping: the spawn ends with it.
            }
        });
    }

    /**
     * Keeps a kept spawn's new policy in its state file (whole, as at keeping), on this manager's
     * thread, so a restart serves it with the policy in effect rather than the one it opened with.
     * A spawn not kept yet (its entry has not handed over) is kept with its newest policy once it serves.
     */
    @Override
    public synchronized void updated(String id, JsonNode policy) {
        if (!kept.containsKey(id)) {
            newer.put(id, policy);
            return;
        }
        try {
            thread.execute(() -> rewrite(id, policy));
        } catch (RejectedExecutionException closing) {
            // The daemon is stopping: what was kept is what the next start serves.
        }
    }

    private synchronized void rewrite(String id, JsonNode policy) {
        Kept was = kept.get(id);
        if (was == null || states.isEmpty()) {
            return; // closed meanwhile
        }
        SpawnState state = new SpawnState(
                policy, was.state().inode(), was.state().cookie(), was.state().sockets());
        try {
            states.get().write(id, state);
            kept.put(id, new Kept(was.spawn(), was.names(), state));
        } catch (IOException | RuntimeException e) {
            log.warn(
                    "spawn {}: its new policy is not kept beyond this process, a restart serves the one before: {}",
                    id,
                    e.toString());
        }
    }

    private synchronized void keep(SpawnHandle spawn, JsonNode opened) {
        String id = spawn.id();
        JsonNode policy = Objects.requireNonNullElse(newer.remove(id), opened);
        if (spawn.isClosed() || kept.containsKey(id) || states.isEmpty() || capacity == 0) {
            return;
        }
        Optional<Receiver.Carried> carried;
        try {
            carried = spawn.carried();
        } catch (IOException | RuntimeException e) {
            log.warn("spawn {} is not kept beyond this process: {}", id, e.getMessage());
            return;
        }
        if (carried.isEmpty()) {
            return;
        }
        List<Receiver.Held> held = carried.get().sockets();
        if (stored + held.size() > capacity) {
            log.atWarn()
                    .addKeyValue("spawn", id)
                    .log(
                            "spawn {} is not kept beyond this process: its {} sockets do not fit the descriptor store,"
                                    + " which holds {} of {} (FileDescriptorStoreMax=)",
                            id,
                            held.size(),
                            stored,
                            capacity);
            return;
        }
        SpawnState state = new SpawnState(
                policy,
                carried.get().origin().inode(),
                carried.get().origin().cookie(),
                held.stream().map(Receiver.Held::socket).toList());
        List<StoreName> names = state.names(id);
        List<StoreName> sent = new ArrayList<>();
        try {
            states.get().write(id, state);
            for (int i = 0; i < held.size(); i++) {
                notify.store(names.get(i).text(), held.get(i).fd());
                sent.add(names.get(i));
            }
        } catch (IOException | RuntimeException e) {
            log.warn("spawn {} is not kept beyond this process: {}", id, e.toString());
            forget(id, sent);
            return;
        }
        kept.put(id, new Kept(spawn, names, state));
        stored += names.size();
        log.atInfo()
                .addKeyValue("spawn", id)
                .addKeyValue("sockets", names.size())
                .log("spawn kept in the service's descriptor store");
    }

    @Override
    public synchronized void closing(String id) {
        newer.remove(id);
        Kept gone = kept.remove(id);
        if (gone != null) {
            stored -= gone.names().size();
            forget(id, gone.names());
        }
    }

    /** The state first: a crash between the two leaves descriptors without a state, which the next start closes. */
    private void forget(String id, List<StoreName> names) {
        try {
            if (states.isPresent()) {
                states.get().remove(id);
            }
            for (StoreName name : names) {
                notify.remove(name.text());
            }
        } catch (IOException | RuntimeException e) {
            log.warn("spawn {}: could not remove it from the service's store: {}", id, e.toString());
        }
    }

    /** {@code READY=1}, with a status line that says how many spawns came back. */
    public synchronized void ready() {
        try {
            notify.status("serving; " + restored + (restored == 1 ? " spawn" : " spawns") + " restored at start");
            notify.ready();
        } catch (IOException e) {
            log.warn("cannot tell the service manager that the daemon serves: {}", e.toString());
        }
    }

    /**
     * {@code STOPPING=1}, and no spawn is kept from now on: a spawn being kept has its sockets
     * stored before this returns, so the drain that follows never closes a descriptor that is
     * being sent.
     */
    public void stopping() {
        try {
            notify.stopping();
        } catch (IOException e) {
            log.warn("cannot tell the service manager that the daemon stops: {}", e.toString());
        }
        finishKeeping();
    }

    private void finishKeeping() {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(10, TimeUnit.SECONDS)) {
                thread.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Lets every kept spawn go without ending it (the daemon stops, the service manager keeps its
     * sockets for the next start): this process's descriptors close, its door token file, its state
     * and its stored sockets stay. Before the relay closes.
     */
    @Override
    public void close() {
        finishKeeping();
        List<Kept> spawns;
        synchronized (this) {
            spawns = List.copyOf(kept.values());
            kept.clear();
        }
        if (!spawns.isEmpty()) {
            log.atInfo()
                    .addKeyValue("spawns", spawns.size())
                    .log("the kept spawns outlive this process: systemd holds their sockets for the next start");
        }
        for (Kept spawn : spawns) {
            try {
                spawn.spawn().letGo();
            } catch (RuntimeException e) {
                log.warn("spawn {}: while letting it go: {}", spawn.spawn().id(), e.toString());
            }
        }
    }
}
