package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.RecordingResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The standard problem body speaks the IETF RateLimit draft's problem types (quota-exceeded for
 * 429, temporary-reduced-capacity for 503), a replaced type holds for every status, and the
 * detail counts seconds in English ("1 second", "2 seconds").
 */
class ProblemBodyTest {

    private static String denial(String policy, DenialBody body) throws Exception {
        EnforcerFixture f = new EnforcerFixture();
        Enforcer e = f.builder(policy).denialBody(body).build();
        FakeRequest r = FakeRequest.get("/");
        e.enforce(r);
        Verdict v = e.enforce(r);
        RecordingResponse response = new RecordingResponse();
        v.writeDenial(response, response);
        return response.bodyText();
    }

    @Test
    void standard_429_isQuotaExceeded_withTheDraftsTitle() throws Exception {
        assertEquals("{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\","
                + "\"title\":\"Request cannot be satisfied as assigned quota has been exceeded\",\"status\":429,"
                + "\"detail\":\"Rate limit exceeded for policy 'p'; retry after 1 second.\","
                + "\"violated-policies\":[\"p\"]}",
                denial("p = token-bucket 1/1s key=global", ProblemBody.standard()));
    }

    @Test
    void standard_503_isTemporaryReducedCapacity_andCountsSecondsInThePlural() throws Exception {
        assertEquals("{\"type\":\"https://iana.org/assignments/http-problem-types#temporary-reduced-capacity\","
                + "\"title\":\"Request cannot be satisfied due to temporary server capacity constraints\","
                + "\"status\":503,\"detail\":\"Rate limit exceeded for policy 'p'; retry after 2 seconds.\","
                + "\"violated-policies\":[\"p\"]}",
                denial("p = token-bucket 1/2s key=global status=503", ProblemBody.standard()));
    }

    @Test
    void standard_otherStatus_isAboutBlank_withTheReasonPhrase() throws Exception {
        String body = denial("p = token-bucket 1/1m key=global status=420", ProblemBody.standard());
        assertEquals("{\"type\":\"about:blank\",\"title\":\"Enhance Your Calm\",\"status\":420,", body.substring(0, body.indexOf("\"detail\"")));
    }

    @Test
    void withType_replacesTheTypeForEveryStatus_andTitlesWithTheReasonPhrase() throws Exception {
        ProblemBody own = ProblemBody.withType("https://example.com/limits");
        for (int status : new int[] {429, 503}) {
            String body = denial("p = token-bucket 1/1m key=global status=" + status, own);
            assertEquals("{\"type\":\"https://example.com/limits\",\"title\":\"" + Reasons.phrase(status) + "\",",
                    body.substring(0, body.indexOf("\"status\"")));
            assertEquals("https://example.com/limits", own.type(status));
        }
        assertNotEquals(ProblemBody.standard(), own);
        assertEquals(ProblemBody.withType("https://example.com/limits"), own);
    }

    @Test
    void withType_notAUri_failsNamingTheValue() {
        assertEquals("problem-type must be a URI but was 'not a uri'",
                assertThrows(IllegalArgumentException.class, () -> ProblemBody.withType("not a uri")).getMessage());
    }

    @Test
    void body_isUtf8Json_ofTheDeclaredContentType() throws Exception {
        String body = denial("p = token-bucket 1/1s key=global", ProblemBody.standard());
        assertEquals(body, new String(body.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8));
        assertEquals("application/problem+json", ProblemBody.CONTENT_TYPE);
    }
}
