package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.store.Inheritance;
import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.RecordingResponse;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

/**
 * A calendar quota's headers count the real seconds to the reset, read off a fake clock: across a
 * daylight-saving change a day is 23 or 25 hours, a month its own length.
 */
class CalendarHeadersTest {

    private final EnforcerFixture f = new EnforcerFixture();
    private final FakeRequest request = FakeRequest.get("/api/x").peer("192.0.2.7");

    private void at(String local, String zone) {
        ZonedDateTime t = LocalDateTime.parse(local).atZone(ZoneId.of(zone));
        f.clock.set(t.toEpochSecond() * 1_000_000_000L);
    }

    @Test
    void dailyQuota_onTheDayParisSpringsForward_reportsTheShortDay() {
        // Given 2 per calendar day in Paris, at 00:30 on the 23-hour day of 29 March 2026
        Enforcer e = f.enforcer("daily = fixed-window 2/day zone=Europe/Paris key=ip");
        at("2026-03-29T00:30", "Europe/Paris");

        // When the quota is spent
        RecordingResponse first = EnforcerFixture.headers(e.enforce(request));
        e.enforce(request);
        Verdict refused = e.enforce(request);
        RecordingResponse denied = EnforcerFixture.headers(refused);

        // Then t and Retry-After are the 22.5 hours to midnight, not 23.5; w is the nominal day
        assertEquals("\"daily\";r=1;t=81000", first.headers.get("RateLimit"));
        assertEquals("\"daily\";q=2;w=86400", first.headers.get("RateLimit-Policy"));
        assertFalse(refused.admitted());
        assertEquals("81000", denied.headers.get("Retry-After"));
        assertEquals("\"daily\";r=0;t=81000", denied.headers.get("RateLimit"));
    }

    @Test
    void monthlyQuota_inNewYorkAtTheEndOfOctober_countsTheExtraHourOfNovember() {
        // Given 1 per month in New York, spent on 31 October 2026 at 23:00
        Enforcer e = f.enforcer("monthly = fixed-window 1/month zone=America/New_York key=ip");
        at("2026-10-31T23:00", "America/New_York");
        assertTrue(e.enforce(request).admitted());

        // When the next request comes an hour and a second later, in November
        Verdict refusedBefore = e.enforce(request);
        f.clock.advanceNanos(3_601_000_000_000L);
        Verdict november = e.enforce(request);

        // Then October refused for the hour left, and November (30 days and a 25-hour day) admits
        assertEquals("3600", EnforcerFixture.headers(refusedBefore).headers.get("Retry-After"));
        assertTrue(november.admitted());
        assertEquals("\"monthly\";r=0;t=" + (30 * 86_400 + 3_600 - 1),
                EnforcerFixture.headers(november).headers.get("RateLimit"));
    }

    @Test
    void reconfigure_monthlyToAnotherZone_keepsWhatTheCustomerUsedThisMonth() {
        // Given a month in Paris with 4 of 5 used, on 15 March 2026
        Enforcer e = f.enforcer("monthly = fixed-window 5/month zone=Europe/Paris key=ip");
        at("2026-03-15T12:00", "Europe/Paris");
        for (int i = 0; i < 4; i++) {
            assertTrue(e.enforce(request).admitted());
        }

        // When the policy moves to New York's calendar, keeping what was used, then back
        e.reconfigure("monthly = fixed-window 5/month zone=America/New_York key=ip", Inheritance.KEEP_CONSUMED);
        Verdict moved = e.enforce(request);
        e.reconfigure("monthly = fixed-window 5/month zone=Europe/Paris key=ip", Inheritance.KEEP_CONSUMED);

        // Then the change gave nothing back: one left, then refused, in either zone, until the
        // new month begins (midnight on 1 April in Paris, as the policy now says)
        assertTrue(moved.admitted());
        assertEquals("\"monthly\";r=0;t=" + (16 * 86_400 + 17 * 3_600),
                EnforcerFixture.headers(moved).headers.get("RateLimit"));
        assertFalse(e.enforce(request).admitted());
        at("2026-04-01T00:00", "Europe/Paris");
        assertTrue(e.enforce(request).admitted());
    }
}
