package io.portcullis.relay.judge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.config.HostConfigJson;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.resolve.Resolution;
import io.portcullis.relay.resolve.Resolver;
import io.portcullis.relay.rules.OwnAddresses;
import java.net.InetAddress;
import java.net.SocketException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OwnAddressBookTest {
    final AtomicReference<Object> interfaces = new AtomicReference<>(List.of(ip("192.0.2.10")));
    final Map<String, String> dns = new ConcurrentHashMap<>(Map.of("gate.example", "198.51.100.7"));

    final OwnAddressBook.Interfaces seam = () -> {
        Object now = interfaces.get();
        if (now instanceof SocketException e) {
            throw e;
        }
        @SuppressWarnings("unchecked")
        List<InetAddress> list = (List<InetAddress>) now;
        return list;
    };

    final Resolver resolver = name -> CompletableFuture.completedFuture(
            dns.containsKey(name)
                    ? Resolution.resolved(List.of(ip(dns.get(name))))
                    : Resolution.failed(Resolution.Status.FAILED, name));

    static InetAddress ip(String text) {
        try {
            return InetAddress.getByName(text);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    OwnAddressBook book() throws ConfigException {
        HostConfig host =
                HostConfigJson.parse("t", "{\"ownNames\": [\"gate.example\"], \"ownAddresses\": [\"203.0.113.5\"]}");
        return new OwnAddressBook(host, seam, resolver);
    }

    @Test
    void interfacesConfiguredAndNamedAddressesAreOwn() throws ConfigException {
        OwnAddresses own = book().refresh().join();
        assertEquals(Set.of(ip("192.0.2.10"), ip("203.0.113.5"), ip("198.51.100.7")), own.addresses());
        for (String always :
                List.of("127.0.0.1", "127.9.9.9", "0.0.0.0", "::1", "::", "::ffff:127.0.0.1", "::ffff:192.0.2.10")) {
            assertTrue(own.contains(ip(always)), always);
        }
        assertFalse(own.contains(ip("192.0.2.11")));
    }

    @Test
    void configuredAddressesCountBeforeTheFirstRefresh() throws ConfigException {
        assertTrue(book().get().contains(ip("203.0.113.5")));
    }

    @Test
    void aFailedReadKeepsTheLastAddresses() throws ConfigException {
        OwnAddressBook book = book();
        book.refresh().join();
        interfaces.set(new SocketException("netlink busy"));
        dns.remove("gate.example");
        OwnAddresses own = book.refresh().join();
        assertTrue(own.contains(ip("192.0.2.10")));
        assertTrue(own.contains(ip("198.51.100.7")));
        assertEquals(Set.of("gate.example"), own.unresolvedNames(), "the name counts as unresolved (R15)");
    }

    @Test
    void everyOwnNameIsUnresolvedUntilItResolves() throws ConfigException {
        OwnAddressBook book = book();
        assertEquals(Set.of("gate.example"), book.get().unresolvedNames(), "before the first refresh");
        dns.remove("gate.example");
        assertEquals(Set.of("gate.example"), book.refresh().join().unresolvedNames());
        dns.put("gate.example", "198.51.100.7");
        assertEquals(Set.of(), book.refresh().join().unresolvedNames());
    }

    @Test
    void keptCurrentByThePeriodicRefresh() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (OwnAddressBook book = book()) {
            book.refresh().join();
            book.refreshEvery(scheduler, Duration.ofMillis(20));
            interfaces.set(List.of(ip("192.0.2.99")));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!book.get().contains(ip("192.0.2.99")) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(book.get().contains(ip("192.0.2.99")));
            assertFalse(book.get().contains(ip("192.0.2.10")), "an address that left an interface is no longer own");
        } finally {
            scheduler.shutdownNow();
        }
    }

    /** Issue 25: own names that did not resolve stalled a start with no word; now it is said, once per change. */
    @ParameterizedTest(name = "said [{0}], now [{1}] -> {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "''           | ''           | ''",
                "''           | gate.example | own names do not resolve: gate.example (NXDOMAIN); until they do, the internet shape refuses every target (own-names-unresolved); listed entries are unaffected",
                "gate.example | gate.example | ''",
                "gate.example | ''           | own names resolve again (gate.example)",
                "gate.example | gate.example b.example | own names do not resolve: b.example (b.example timed out), gate.example (NXDOMAIN)",
            })
    void whatIsSaidIsTheChange(String said, String now, String line) {
        Map<String, String> why = Map.of("gate.example", "gate.example: NXDOMAIN", "b.example", "b.example timed out");

        Optional<String> change = OwnAddressBook.change(names(said), names(now), why);

        if (line.isEmpty()) {
            assertEquals(Optional.empty(), change);
        } else {
            assertTrue(change.orElseThrow().startsWith(line), change.get());
        }
    }

    private static Set<String> names(String spaced) {
        return spaced.isBlank() ? Set.of() : Set.of(spaced.strip().split(" +"));
    }
}
