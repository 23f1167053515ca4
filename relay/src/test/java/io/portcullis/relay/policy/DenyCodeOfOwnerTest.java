package io.portcullis.relay.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.portcullis.owner.OwnerCode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Each owner code's refusal is the deny code of the same text (the switch is exhaustive; this pins the pairs). */
class DenyCodeOfOwnerTest {
    @ParameterizedTest
    @EnumSource(OwnerCode.class)
    void eachOwnerCodeIsTheDenyCodeOfItsText(OwnerCode owner) {
        assertEquals(owner.code(), DenyCode.of(owner).code());
    }
}
