package io.portcullis.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PrerequisitesTest {

    @ParameterizedTest(name = "uid {0}, [{1}], userns {2} -> [{3}]")
    @CsvSource({
        "0, ip curl unshare setpriv, true, ''",
        "1000, ip curl unshare setpriv, true, root",
        "0, curl unshare setpriv, true, ip",
        "0, ip unshare setpriv, true, curl",
        "0, ip curl setpriv, true, unshare",
        "0, ip curl unshare, true, setpriv",
        "0, ip curl unshare setpriv, false, user namespaces",
        "1000, unshare, false, root/ip/curl/setpriv",
    })
    void eachMissingNeedIsNamed(int uid, String installed, boolean userns, String expected) {
        Set<String> programs = Set.of(installed.split(" "));
        List<String> missing = Prerequisites.missing(uid, programs::contains, argv -> userns);
        List<String> needs =
                missing.stream().map(m -> m.substring(0, m.indexOf(':'))).toList();
        assertEquals(expected.isEmpty() ? List.of() : List.of(expected.split("/")), needs, missing.toString());
    }
}
