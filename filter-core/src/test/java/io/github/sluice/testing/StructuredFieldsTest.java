package io.github.sluice.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.sluice.testing.StructuredFields.Item;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The test parser is itself checked against examples of RFC 9651, so that its verdicts mean something. */
class StructuredFieldsTest {

    @Test
    void parseList_itemsWithParameters() {
        List<Object> list = StructuredFields.parseList("\"a\";q=100;w=60, \"b\";q=5;qu=\"concurrent-requests\"");

        assertEquals(2, list.size());
        Item a = (Item) list.get(0);
        assertEquals("a", a.value());
        assertEquals(Map.of("q", 100L, "w", 60L), a.params());
        assertEquals("concurrent-requests", ((Item) list.get(1)).param("qu"));
    }

    @Test
    void parseList_rfcExamples() {
        assertEquals(3, StructuredFields.parseList("sugar, tea, rum").size());
        assertEquals(2, StructuredFields.parseList("(\"foo\" \"bar\"), (\"baz\")").size());
        assertEquals(List.of(), StructuredFields.parseList(""));
        Item item = StructuredFields.parseItem("\"say \\\"hi\\\" \\\\ now\"");
        assertEquals("say \"hi\" \\ now", item.value());
        assertEquals(new BigDecimal("4.5"), StructuredFields.parseItem("4.5").value());
        assertEquals(-42L, StructuredFields.parseItem("-42").value());
        assertEquals(Boolean.TRUE, StructuredFields.parseItem("abc;a=?1;b").param("b"));
        assertEquals(new StructuredFields.Token("foo123/456"), StructuredFields.parseItem("foo123/456").value());
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"a\",", "\"a\" ;q=1", "\"a\";Q=1", "1234567890123456", "\"unterminated", "\"bad\\x\"",
        "\"a\" \"b\"", "(\"a\"\"b\")", "?2", "1.2345", "1.", "\"tab\there\"", "\"é\"", ",\"a\"", "\"a\";q=", "a;1=2"})
    void parse_invalid_isRejected(String field) {
        assertThrows(IllegalArgumentException.class, () -> {
            StructuredFields.parseList(field);
            if (!field.contains(",")) {
                StructuredFields.parseItem(field);
            }
        });
    }
}
