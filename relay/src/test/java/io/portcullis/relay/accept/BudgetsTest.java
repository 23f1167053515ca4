package io.portcullis.relay.accept;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.embedded.EmbeddedChannel;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.HostConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BudgetsTest {

    private static HostConfig.Limits limits(int spawn, int relay) {
        Duration second = Duration.ofSeconds(1);
        return new HostConfig.Limits(8192, second, second, second, spawn, relay, 1024);
    }

    /**
     * The busy spawn takes what it may, then the quiet one asks once. The relay's budget is 8: its
     * last quarter (2 places) goes only to spawns below their fair share (8 / spawns open).
     */
    @ParameterizedTest(name = "spawn limit {0}, relay limit {1}, {2} spawns open -> busy takes {3}, quiet gets {4}")
    @CsvSource(
            value = {
                "4,   8, 2, 4, none",
                "100, 8, 2, 6, none",
                "100, 8, 1, 8, limit-relay",
                "100, 8, 8, 6, none",
                "2,   2, 2, 2, limit-relay",
            })
    void aBusySpawnLeavesTheLastPlacesToOthers(
            int spawnLimit, int relayLimit, int spawnsOpen, int busyTakes, String quiet) {
        Budgets relay = new Budgets();
        Budgets busy = new Budgets();
        HostConfig.Limits limits = limits(spawnLimit, relayLimit);
        int taken = 0;
        while (taken < 1000 && Budgets.take(busy, relay, limits, spawnsOpen).isEmpty()) {
            taken++;
        }

        Optional<DenyCode> answer = Budgets.take(new Budgets(), relay, limits, spawnsOpen);

        assertEquals(busyTakes, taken);
        assertEquals(busyTakes, busy.open());
        assertEquals(quiet.equals("none") ? Optional.empty() : Optional.of(quiet), answer.map(DenyCode::code));
    }

    @ParameterizedTest(name = "{0} open of {1} -> {2}")
    @CsvSource(value = {"3, 4, true", "4, 4, false"})
    void theSpawnBudgetIsTheFirstToSayNo(int open, int limit, boolean room) {
        Budgets relay = new Budgets();
        Budgets spawn = new Budgets();
        for (int i = 0; i < open; i++) {
            assertEquals(Optional.empty(), Budgets.take(spawn, relay, limits(limit, 100), 1));
        }

        Optional<DenyCode> answer = Budgets.take(spawn, relay, limits(limit, 100), 1);

        assertEquals(room ? Optional.empty() : Optional.of(DenyCode.LIMIT_SPAWN), answer);
        assertEquals(room ? open + 1 : open, relay.open());
    }

    /** The relay's descriptor bound caps its budget below what the configuration asks. */
    @ParameterizedTest(name = "cap {0}, relay limit {1} -> {2} places")
    @CsvSource(value = {"3, 100, 3", "100, 3, 3", "1, 1, 1"})
    void theDescriptorBoundCapsTheRelaysBudget(int cap, int relayLimit, int places) {
        Budgets relay = new Budgets(cap);
        int taken = 0;
        while (taken < 1000
                && Budgets.take(new Budgets(), relay, limits(1000, relayLimit), 1)
                        .isEmpty()) {
            taken++;
        }

        assertEquals(places, taken);
        assertEquals(
                Optional.of(DenyCode.LIMIT_RELAY), Budgets.take(new Budgets(), relay, limits(1000, relayLimit), 1));
    }

    /** Refused connections that hold no place linger a bounded number at once (SPEC R17, issue 26). */
    @Test
    void atMostAQuarterOfTheReserveLingersAndAClosedOneGivesItsPlaceBack() {
        Budgets relay = new Budgets(1000);
        List<EmbeddedChannel> lingering = new ArrayList<>();
        for (int i = 0; i < Budgets.LINGERING; i++) {
            EmbeddedChannel channel = new EmbeddedChannel();
            lingering.add(channel);
            assertTrue(relay.tryLinger(channel), "place " + i);
        }
        EmbeddedChannel over = new EmbeddedChannel();
        assertFalse(relay.tryLinger(over));

        lingering.getFirst().close();

        assertTrue(relay.tryLinger(over));
        assertEquals(Descriptors.RESERVE / 4, Budgets.LINGERING);
    }
}
