package io.github.sluice.webflux;

import java.util.List;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.util.MultiValueMap;

/**
 * Every line of one header (a request's, or a response's field another Sluice layer wrote), on
 * Spring Framework 6 and 7 from one jar, without reflection.
 *
 * <p>Spring 7 changed {@link HttpHeaders}: it is no longer a {@code MultiValueMap}, and its
 * {@code get(Object)} became {@code get(String)}. A call compiled against either generation fails
 * with {@code NoSuchMethodError} on the other. This class calls only what both have: on Spring 6
 * the headers are a map (one hash lookup, as before); on Spring 7 {@code headerSet()}, which both
 * generations declare with the same signature and which holds one entry per name, compared without
 * regard to case. Stateless.
 */
final class HeaderLines {

    private HeaderLines() {
    }

    /**
     * @param headers a request's or a response's headers
     * @param name a header name, in any case
     * @return every line of that header in the order received, or {@code null} when there is none
     */
    @SuppressWarnings("unchecked")
    static List<String> of(HttpHeaders headers, String name) {
        Object any = headers; // Spring 6: a MultiValueMap; Spring 7: not (see the class comment)
        if (any instanceof MultiValueMap<?, ?> map) {
            return (List<String>) map.get(name);
        }
        for (Map.Entry<String, List<String>> header : headers.headerSet()) {
            if (header.getKey().equalsIgnoreCase(name)) {
                return header.getValue();
            }
        }
        return null;
    }
}
