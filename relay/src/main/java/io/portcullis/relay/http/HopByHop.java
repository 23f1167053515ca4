package io.portcullis.relay.http;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * The fields that end at the relay on one side of an exchange (RFC 9110 section 7.6.1): that
 * side's hop-by-hop fields and every field its {@code Connection} fields name.
 */
final class HopByHop {
    private HopByHop() {}

    /**
     * @param always the side's hop-by-hop field names, in lowercase
     * @param connection the values of its {@code Connection} fields
     * @return the lowercase names to leave out, a set the caller may change
     */
    static Set<String> fields(Set<String> always, Iterable<String> connection) {
        Set<String> removed = new HashSet<>(always);
        for (String field : connection) {
            for (String token : field.split(",", -1)) {
                removed.add(token.trim().toLowerCase(Locale.ROOT));
            }
        }
        return removed;
    }
}
