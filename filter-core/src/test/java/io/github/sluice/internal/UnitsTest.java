package io.github.sluice.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UnitsTest {

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", value = {
        "0 => 0s", "1 => 1ns", "1000 => 1us", "10000000 => 10ms", "600000000 => 600ms", "1500000000 => 1.5s",
        "60000000000 => 1m", "90000000000 => 1.5m", "5400000000000 => 1.5h", "86400000000000 => 1d",
        "604800001000000 => 7d 1ms", "333333334 => about 333.3ms", "-1000000000 => -1s",
        "2305843009213693952 => about 26688d", "599999999999940000 => about 6944.4d",
    })
    void duration_isWrittenAsUsersWriteIt(long nanos, String text) {
        assertEquals(text, Units.duration(nanos));
    }

    @Test
    void duration_neverIso8601NorRawNanos() {
        assertEquals("36500d", Units.duration(Duration.ofDays(36500)));
        assertEquals("about 106751991167d", Units.duration(Duration.ofSeconds(Long.MAX_VALUE / 1000, 7)));
        assertEquals("26687d (about 73 years)", Units.MAX_DURATION);
        for (long n : new long[] {1, 7, 999_999_999, Long.MAX_VALUE, Long.MIN_VALUE, Checks.MAX_NANOS - 1}) {
            String s = Units.duration(n);
            assertFalse(s.startsWith("PT") || s.matches(".*\\d{12,}ns.*"), s);
        }
    }

    @Test
    void suggest_nearMissesOnly() {
        List<String> known = List.of("burst", "key", "dry-run", "trusted-proxies", "ip", "principal");
        assertEquals("burst", Suggest.nearest("brust", known));
        assertEquals("burst", Suggest.nearest("Burst", known));
        assertEquals("dry-run", Suggest.nearest("dry_run", known));
        assertEquals("dry-run", Suggest.nearest("dryrun", known));
        assertEquals("trusted-proxies", Suggest.nearest("trusted-proxy", known));
        assertEquals("principal", Suggest.nearest("principle", known));
        assertEquals("ip", Suggest.nearest("ipp", known));
        assertNull(Suggest.nearest("colour", known));
        assertNull(Suggest.nearest("k", List.of("burst")));
        assertNull(Suggest.nearest("burst", List.of("burst")), "an exact name is no slip");
        assertEquals("", Suggest.didYouMean("zzz", known));
        assertEquals("; did you mean 'key'?", Suggest.didYouMean("kye", known));
    }
}
