package io.portcullis.relay.generation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.portcullis.owner.OwnerConfig;
import io.portcullis.relay.config.HostConfigJson;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** D63: a part is made once per key, held by each generation's lease, and closed when replaced and let go. */
class SharedTest {
    private final List<String> made = new ArrayList<>();
    private final List<String> closed = new ArrayList<>();
    private final Shared<String, AutoCloseable> shared = new Shared<>(key -> {
        made.add(key);
        return () -> closed.add(key);
    });

    @Test
    void anEqualKeyGetsTheSamePart() throws IOException {
        Shared.Lease<AutoCloseable> first = shared.lease("a");
        Shared.Lease<AutoCloseable> second = shared.lease("a");

        assertSame(first.get(), second.get());
        assertEquals(List.of("a"), made);
        first.close();
        second.close();
        assertEquals(List.of(), closed, "the current part stays for the next generation");
    }

    @Test
    void aReplacedPartClosesOnceTheLastLeaseLetsGo() throws IOException {
        Shared.Lease<AutoCloseable> old = shared.lease("a");
        Shared.Lease<AutoCloseable> next = shared.lease("b");

        assertEquals(List.of(), closed, "a retiring generation still holds a");
        old.close();
        old.close();
        assertEquals(List.of("a"), closed);
        shared.close();
        assertEquals(List.of("a"), closed, "b is held");
        next.close();
        assertEquals(List.of("a", "b"), closed);
    }

    @Test
    void aFailedMakeLeavesTheCurrentPart() throws IOException {
        Shared<String, AutoCloseable> failing = new Shared<>(key -> {
            if (key.equals("bad")) {
                throw new IOException("cannot make " + key);
            }
            made.add(key);
            return () -> closed.add(key);
        });
        Shared.Lease<AutoCloseable> good = failing.lease("good");

        assertThrows(IOException.class, () -> failing.lease("bad"));
        assertSame(good.get(), failing.lease("good").get());
        assertEquals(List.of("good"), made);
    }

    /** owner part of two host files | the same owner check. */
    @ParameterizedTest(name = "{0} | {1} -> {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{} | {} | true",
                "{\"cacheMillis\": 1000} | {} | true",
                "{\"signatures\": [{\"name\": \"gw\", \"argv\": \"gateway.*\"}]} | {\"signatures\": [{\"name\": \"gw\", \"argv\": \"gateway.*\"}]} | true",
                "{\"signatures\": [{\"name\": \"gw\", \"argv\": \"gateway.*\"}]} | {\"signatures\": [{\"name\": \"gw\", \"argv\": \"gateway.+\"}]} | false",
                "{\"signatures\": [{\"name\": \"gw\", \"argv\": \"gw\"}]} | {\"signatures\": [{\"name\": \"gw\", \"exe\": \"gw\"}]} | false",
                "{\"addons\": [\"a\"]} | {\"addons\": [\"b\"]} | false",
                "{\"cacheMillis\": 0} | {} | false",
                "{\"gatewayUid\": 1000} | {} | false",
            })
    void anOwnerPartIsTheSameFieldByField(String first, String second, boolean same) throws Exception {
        Keys.OwnerKey a = Keys.OwnerKey.of(owner(first));
        Keys.OwnerKey b = Keys.OwnerKey.of(owner(second));
        if (same) {
            assertEquals(a, b);
            assertEquals(a.hashCode(), b.hashCode());
        } else {
            assertNotEquals(a, b);
        }
    }

    private static OwnerConfig owner(String json) throws Exception {
        return HostConfigJson.parse("host.json", "{\"owner\": " + json + "}").owner();
    }
}
