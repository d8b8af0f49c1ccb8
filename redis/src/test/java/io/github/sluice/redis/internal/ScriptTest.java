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
    @Test
    void library_definesEveryAlgorithmOnceInItsOwnBlock_andRegistersItsNamedFunction() {
        Script script = Script.load();
        String library = script.library();
        String name = script.libraryName();
        assertTrue(name.matches("sluice_[0-9a-f]{12}"), name);
        assertTrue(library.startsWith("#!lua name=" + name + "\n"), "the library's first line");
        assertTrue(library.contains("redis.register_function{function_name = '" + name + "'"));
        // Every kind is defined, as often as the script defines it, each file in a block of its own
        for (String kind : Script.ALGORITHMS.values().stream().flatMap(List::stream).toList()) {
            assertEquals(count(script.source(), "A['" + kind + "']"), count(library, "A['" + kind + "']"), kind);
        }
        assertEquals(Script.ALGORITHMS.size(), count(library, "\ndo\n"), "one do ... end block per file");
        // A library's load may only register functions: nothing may call Redis at load time
        assertFalse(library.contains("replicate_commands"), "the library calls redis.replicate_commands");
        assertTrue(script.source().contains("redis.replicate_commands()"), "the script lost replicate_commands");
    }

    @Test
    void libraryName_anyLuaFileChanged_changes() {
        Script original = Script.load();
        List<String> files = new ArrayList<>(List.of("prelude", "main"));
        files.addAll(Script.ALGORITHMS.keySet());
        Script.INCLUDES.values().forEach(files::addAll);
        for (String changed : files) {
            Script s = Script.load(f -> Script.resource(f) + (f.equals(changed) ? "\n-- changed\n" : ""));
            assertFalse(s.libraryName().equals(original.libraryName()), "changing " + changed + ".lua kept the name");
            assertFalse(s.sha().equals(original.sha()), "changing " + changed + ".lua kept the digest");
        }
        // The script's first lines are not in the library: its name is its own text's
        Script s = Script.load(f -> Script.resource(f) + (f.equals("replication") ? "\n-- changed\n" : ""));
        assertEquals(original.libraryName(), s.libraryName());
        assertFalse(s.sha().equals(original.sha()));
        // And the same files make the same name
        assertEquals(original.libraryName(), Script.load().libraryName());
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }
}
