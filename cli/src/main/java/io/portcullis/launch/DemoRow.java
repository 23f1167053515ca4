package io.portcullis.launch;

import java.util.Objects;

/**
 * One connection the demo makes from inside the sandbox, and what it shows.
 *
 * @param url what curl asks for
 * @param target the target the relay's decision line names for it
 * @param allowed whether the policy should let it through
 * @param about the case it shows, in a few words
 * @param evidence whether its "why" also shows what the owner check saw
 */
record DemoRow(String url, String target, boolean allowed, String about, boolean evidence) {
    DemoRow(String url, String target, boolean allowed, String about) {
        this(url, target, allowed, about, false);
    }

    DemoRow {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(about, "about");
    }
}
