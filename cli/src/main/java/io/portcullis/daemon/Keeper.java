package io.portcullis.daemon;

import com.fasterxml.jackson.databind.JsonNode;
import io.portcullis.relay.SpawnHandle;

/**
 * What keeps the daemon's spawns beyond its own life (SPEC R44): told of each spawn the control API
 * opens and of each it is about to close. {@link #NONE} keeps nothing: the spawns end with the process.
 */
public interface Keeper {
    /** Keeps nothing. */
    Keeper NONE = new Keeper() {
        @Override
        public void opened(SpawnHandle spawn, JsonNode policy) {}

        @Override
        public void updated(String id, JsonNode policy) {}

        @Override
        public void closing(String id) {}
    };

    /** {@code spawn} was opened from {@code policy}, the JSON the wall sent; it is kept once handed over. */
    void opened(SpawnHandle spawn, JsonNode policy);

    /** The open spawn {@code id} now has {@code policy} (a {@code PUT}), which whatever keeps it keeps from now on. */
    void updated(String id, JsonNode policy);

    /** The spawn {@code id} is about to be closed: whatever keeps it is let go first. */
    void closing(String id);
}
