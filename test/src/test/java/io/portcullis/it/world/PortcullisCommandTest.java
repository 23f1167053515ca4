package io.portcullis.it.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The tests reach the real executable; runs in the host's namespace (it dials nothing). */
class PortcullisCommandTest {

    @Test
    void theExecutableAnswersHelp() throws Exception {
        Run run = Portcullis.run(List.of("--help"), "");
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().contains("Usage: portcullis"), run.out());
    }
}
