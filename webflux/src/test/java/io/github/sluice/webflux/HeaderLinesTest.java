package io.github.sluice.webflux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.core.SpringVersion;
import org.springframework.http.HttpHeaders;

/**
 * {@link HeaderLines} on the Spring Framework generation this module runs on: 6.2 here, 7.0 in
 * webflux/boot4-tests (the same source, the same jar). A call that links against only one
 * generation fails there with {@code NoSuchMethodError}.
 */
class HeaderLinesTest {

    @Test
    void of_aHeaderSentOnSeveralLines_everyLineInOrder_whateverTheCase() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("X-Forwarded-For", "198.51.100.1");
        headers.add("x-forwarded-for", "203.0.113.5, 203.0.113.6");
        headers.add("Forwarded", "for=\"[2001:db8::1]:80\", for=192.0.2.7");

        assertEquals(List.of("198.51.100.1", "203.0.113.5, 203.0.113.6"), HeaderLines.of(headers, "X-FORWARDED-FOR"),
                "Spring " + SpringVersion.getVersion());
        assertEquals(List.of("for=\"[2001:db8::1]:80\", for=192.0.2.7"), HeaderLines.of(headers, "forwarded"),
                "the lines as sent: a comma inside quotes does not split them");
    }

    @Test
    void of_aHeaderNotSent_null() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("X-Api-Key", "k");

        assertNull(HeaderLines.of(headers, "X-Forwarded-For"));
        assertNull(HeaderLines.of(new HttpHeaders(), "X-Api-Key"));
    }
}
