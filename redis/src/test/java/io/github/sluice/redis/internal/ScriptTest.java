package io.github.sluice.redis.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The script's layout: Redis runs a script's whole text on every call, so nothing an algorithm
 * defines may sit at its top level (that cost every call a definition of all nine algorithms,
 * 15-20 us of the server's time per decision on the benchmark machine).
 */
class ScriptTest {

    private static final Pattern ENTRY = Pattern.compile("A\\['([a-z-]+)'\\]\\s*=");

    @Test
    void source_topLevel_definesNoAlgorithm() {
        String source = Script.load().source();
        int start = source.indexOf("local function define(kind)\n");
        int end = source.indexOf("\nend\nreturn A[kind]\nend\n", start);
        assertTrue(start > 0 && end > start, "the script has no define(kind) function around its algorithms");

        String topLevel = source.substring(0, start) + source.substring(end);
        Matcher m = ENTRY.matcher(topLevel);
        assertFalse(m.find(), () -> "algorithm '" + m.group(1) + "' is defined at the script's top level,"
                + " i.e. on every call");
    }

    @Test
    void define_hasABranchForEveryKindItsFileDefines() {
        String body = Script.load().source();
        List<String> defined = new ArrayList<>();
        Matcher m = ENTRY.matcher(body);
        while (m.find()) {
            defined.add(m.group(1));
        }
        List<String> dispatched = new ArrayList<>();
        Script.ALGORITHMS.values().forEach(dispatched::addAll);

        // Every entry a file defines is reachable through define(kind), and nothing else is named
        assertEquals(dispatched.stream().sorted().toList(), defined.stream().sorted().toList());
        for (String kind : dispatched) {
            assertTrue(body.contains("kind == '" + kind + "'"), kind);
        }
    }
}
