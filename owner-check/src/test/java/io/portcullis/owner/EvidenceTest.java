package io.portcullis.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How much of a process's argv and a container's labels the evidence shows. */
class EvidenceTest {

    /** length of the text | the most shown | the shown text's length | what it ends with. */
    @ParameterizedTest(name = "{0} characters, at most {1}")
    @CsvSource(delimiter = '|', textBlock = """
            0    | 1024 | 0    | -
            1024 | 1024 | 1024 | a
            1025 | 1024 | 1045 | … (1 more characters)
            5000 | 10   | 34   | … (4990 more characters)
            """)
    void aLongTextIsCutAndSaysHowMuchWasLeftOut(int length, int most, int shownLength, String end) {
        String shown = Evidence.cut("a".repeat(length), most);
        assertEquals(shownLength, shown.length(), shown);
        assertTrue(end.equals("-") || shown.endsWith(end), shown);
    }

    @Test
    void aCutNeverSplitsASurrogatePair() {
        String text = "a".repeat(1023) + "😀" + "b";
        String shown = Evidence.cut(text, 1024);
        assertEquals("a".repeat(1023) + "… (3 more characters)", shown);
    }

    @Test
    void anArgvOfTwoMegabytesIsShownInAtMost4096CharactersAndSaysWhatWasLeftOut() {
        List<String> argv = Collections.nCopies(2048, "x".repeat(1024));
        List<String> shown = Evidence.shown(argv);
        assertEquals(
                List.of(
                        "x".repeat(1024),
                        "x".repeat(1024),
                        "x".repeat(1024),
                        "x".repeat(1012) + "… (12 more characters)",
                        "… (2044 more arguments)"),
                shown);
    }

    @Test
    void emptyArgumentsCountToo() {
        List<String> shown = Evidence.shown(Collections.nCopies(100_000, ""));
        assertEquals(1366, shown.size());
        assertEquals("… (98635 more arguments)", shown.getLast());
    }

    @Test
    void atMost64LabelsAreShownByNameAndTheRestCounted() {
        Map<String, String> labels = new HashMap<>();
        for (int i = 0; i < 100; i++) {
            labels.put("label-%03d".formatted(i), "v".repeat(i == 0 ? 5000 : 1));
        }
        Map<String, String> shown = Evidence.shown(labels);
        assertEquals(65, shown.size());
        assertEquals("(36 more labels)", shown.get("…"));
        assertEquals("v".repeat(1024) + "… (3976 more characters)", shown.get("label-000"));
        assertTrue(
                shown.containsKey("label-063") && !shown.containsKey("label-064"),
                shown.keySet().toString());
    }

    @Test
    void aShortArgvIsShownWhole() {
        List<String> argv = List.of("python3", "-m", "http.server", "--bind=127.0.0.1", "8080");
        assertEquals(argv, Evidence.shown(argv));
    }

    @Test
    void oneLongArgumentAmongShortOnesIsCutAndTheRestStillFit() {
        List<String> shown = Evidence.shown(List.of("node", "y".repeat(5000), "server.js"));
        assertEquals(List.of("node", "y".repeat(1024) + "… (3976 more characters)", "server.js"), shown);
    }

    @Test
    void theTotalCutsTheLastElementThatCrossesIt() {
        List<String> shown = Evidence.shown(
                List.of("a".repeat(1000), "b".repeat(1000), "c".repeat(1000), "d".repeat(1000), "e".repeat(200)));
        assertEquals(5, shown.size(), shown.toString());
        assertEquals("e".repeat(81) + "… (119 more characters)", shown.get(4));
    }
}
