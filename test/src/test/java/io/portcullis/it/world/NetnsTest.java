package io.portcullis.it.world;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A test that dials non-loopback addresses: it runs in the surefire execution whose JVM lives in a
 * network namespace of its own (scripts/netns-jvm/bin/java), never in the host's.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(NetnsTest.TAG)
public @interface NetnsTest {
    String TAG = "netns";
}
