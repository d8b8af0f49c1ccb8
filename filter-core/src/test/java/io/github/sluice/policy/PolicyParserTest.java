package io.github.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.SmoothBursty;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.algorithm.WarmUp;
import io.github.sluice.core.Rate;
import io.github.sluice.key.KeyResolvers;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PolicyParserTest {

    @Test
    void parse_designExamples_equalTheBuilders() {
        assertEquals(Policy.builder("per-ip")
                        .algorithm(TokenBucket.builder().rate(Rate.perMinute(100)).burst(20).build())
                        .key(KeyResolvers.ip()).match(Match.paths("/api/*")).build(),
                Policy.parse("per-ip    = token-bucket 100/1m burst=20 key=ip match=/api/*"));
        assertEquals(Policy.builder("login")
                        .algorithm(FixedWindow.builder().limit(5).window(Duration.ofMinutes(1)).build())
                        .key(KeyResolvers.ip()).match(Match.of(List.of("POST"), "/login")).build(),
                Policy.parse("login = fixed-window 5/1m key=ip match=POST:/login"));
        assertEquals(Policy.builder("inflight").algorithm(Concurrency.builder().maxInFlight(50).build())
                        .key(KeyResolvers.global()).status(503).build(),
                Policy.parse("inflight  = concurrency 50 key=global status=503"));
    }

    @Test
    void parse_everyOption_equalsTheBuilder() {
        Policy parsed = Policy.parse("api = sliding-window 1000/1h slots=60 key=principal|header:X-Api-Key|ip"
                + " match=GET|HEAD:/api/*,/v2/* cost=2 status=503 dry-run allow=10.0.0.0/8,partner");

        Policy built = Policy.builder("api")
                .algorithm(SlidingWindow.builder().limit(1000).window(Duration.ofHours(1)).slots(60).build())
                .key(KeyResolvers.firstOf(KeyResolvers.principal(), KeyResolvers.header("X-Api-Key"), KeyResolvers.ip()))
                .match("GET|HEAD:/api/*,/v2/*")
                .cost(2).status(503).dryRun(true).allow("10.0.0.0/8", "partner")
                .build();
        assertEquals(built, parsed);
        assertEquals(built.hashCode(), parsed.hashCode());
    }

    @Test
    void parse_eachAlgorithm_equalsItsBuilder() {
        assertEquals(TokenBucket.builder().rate(Rate.perSecond(10)).burst(10).build(),
                Policy.parse("a = token-bucket 10/s key=ip").algorithm());
        assertEquals(Gcra.builder().rate(Rate.perSecond(10)).burst(9).build(),
                Policy.parse("a = gcra 10/1s key=ip").algorithm());
        assertEquals(Gcra.builder().rate(Rate.perSecond(10)).burst(0).build(),
                Policy.parse("a = gcra 10/1s burst=0 key=ip").algorithm());
        assertEquals(FixedWindow.builder().limit(5).window(Duration.ofMillis(500))
                        .alignment(FixedWindow.Alignment.FIRST_REQUEST).build(),
                Policy.parse("a = fixed-window 5/500ms align=first-request key=ip").algorithm());
        assertEquals(SlidingWindow.builder().limit(7).window(Duration.ofDays(1)).build(),
                Policy.parse("a = sliding-window 7/1d key=ip").algorithm());
        assertEquals(LeakyBucket.builder().rate(Rate.perSecond(2)).capacity(20).build(),
                Policy.parse("a = leaky-bucket 2/1s capacity=20 key=ip").algorithm());
        assertEquals(LeakyBucket.builder().rate(Rate.perSecond(2)).capacity(2).build(),
                Policy.parse("a = leaky-bucket 2/1s key=ip").algorithm());
        assertEquals(ShapingLeakyBucket.builder().rate(Rate.perSecond(50)).build(),
                Policy.parse("a = shaping 50/1s key=ip").algorithm());
        assertEquals(ShapingLeakyBucket.builder().rate(Rate.perSecond(50)).slack(0)
                        .maxDelay(Duration.ofMillis(250)).build(),
                Policy.parse("a = shaping 50/1s slack=0 max-delay=250ms key=ip").algorithm());
        assertEquals(ShapingLeakyBucket.builder().rate(Rate.perSecond(50)).slack(3)
                        .start(ShapingLeakyBucket.Start.EARNED).build(),
                Policy.parse("a = shaping 50/1s slack=3 start=earned key=ip").algorithm());
        assertEquals(ShapingLeakyBucket.builder().rate(Rate.perSecond(50)).start(ShapingLeakyBucket.Start.EMPTY).build(),
                Policy.parse("a = shaping 50/1s start=empty key=ip").algorithm());
        assertEquals(Concurrency.builder().maxInFlight(50).build(),
                Policy.parse("a = concurrency 50 key=global status=503").algorithm());
        assertEquals(Concurrency.builder().maxInFlight(50).maxWait(Duration.ofMillis(200)).build(),
                Policy.parse("a = concurrency 50 max-wait=200ms key=global").algorithm());
        assertEquals(SlidingLog.builder().limit(100).window(Duration.ofMinutes(1)).build(),
                Policy.parse("a = sliding-log 100/1m key=ip").algorithm());
        assertEquals(WarmUp.builder().rate(Rate.perSecond(10)).warmUp(Duration.ofSeconds(30)).build(),
                Policy.parse("a = warm-up 10/1s warm-up=30s key=ip").algorithm());
        assertEquals(WarmUp.builder().rate(Rate.perSecond(10)).warmUp(Duration.ofSeconds(30)).coldFactor(2.5)
                        .build(),
                Policy.parse("a = warm-up 10/1s warm-up=30s cold-factor=2.5 key=ip").algorithm());
        assertEquals(SmoothBursty.builder().rate(Rate.perSecond(5)).build(),
                Policy.parse("a = smooth-bursty 5/1s key=ip").algorithm());
        assertEquals(SmoothBursty.builder().rate(Rate.perSecond(5)).maxBurst(Duration.ofSeconds(3)).build(),
                Policy.parse("a = smooth-bursty 5/1s max-burst=3s key=ip").algorithm());
        assertEquals(SmoothBursty.builder().rate(Rate.perSecond(5)).maxBurst(Duration.ZERO).build(),
                Policy.parse("a = smooth-bursty 5/1s max-burst=0s key=ip").algorithm());
    }

    @Test
    void parse_keys_everyForm() {
        assertEquals(KeyResolvers.global(), Policy.parse("a = token-bucket 1/s key=global").key());
        assertEquals(KeyResolvers.constant("x"), Policy.parse("a = token-bucket 1/s key=constant:x").key());
        assertEquals(KeyResolvers.attribute("tenant"), Policy.parse("a = token-bucket 1/s key=attribute:tenant").key());
        assertEquals(KeyResolvers.principal(), Policy.parse("a = token-bucket 1/s key=principal").key());
    }

    @Test
    void parse_ipKey_isTheDefaultIpKey_whoseSettingsTheEnforcerGives() {
        assertSame(KeyResolvers.ip(), Policy.parse("a = token-bucket 1/s key=ip").key());
    }

    @Test
    void parse_severalLines_skipsBlankLinesAndComments() {
        List<Policy> ps = PolicyParser.parse("""
                # limits
                per-ip = token-bucket 100/1m key=ip

                   login = fixed-window 5/1m key=ip match=POST:/login
                """, "test");

        assertEquals(List.of("per-ip", "login"), ps.stream().map(Policy::name).toList());
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
        "per-ip token-bucket 1/1m key=ip => policy line 1: policy='per-ip token-bucket 1/1m key=ip': a policy line must have the form 'name = algorithm ...'",
        "Per-IP = token-bucket 1/1m key=ip => policy line 1: name='Per-IP': policy name must match [a-z0-9-]{1,64} but was 'Per-IP'; did you mean 'per-ip'?",
        "a = => policy line 1 (policy 'a'): algorithm (missing): an algorithm must follow '=' (one of [token-bucket, gcra, fixed-window, sliding-window, leaky-bucket, concurrency, shaping, sliding-log, warm-up, smooth-bursty, adaptive])",
        "a = bucket 1/1m key=ip => policy line 1 (policy 'a'): algorithm='bucket': unknown algorithm; known algorithms: [token-bucket, gcra, fixed-window, sliding-window, leaky-bucket, concurrency, shaping, sliding-log, warm-up, smooth-bursty, adaptive]",
        "a = token-bucket key=ip => policy line 1 (policy 'a'): rate (missing): token-bucket needs rate as permits/period (e.g. 100/1m) right after its name",
        "a = token-bucket 100 key=ip => policy line 1 (policy 'a'): rate='100': rate must be written permits/period, e.g. 100/1m",
        "a = token-bucket x/1m key=ip => policy line 1 (policy 'a'): rate='x/1m': rate must be written permits/period with whole permits, e.g. 100/1m",
        "a = token-bucket 0/1m key=ip => policy line 1 (policy 'a'): rate='0/1m': permits must be >= 1 but was 0",
        "a = token-bucket 1/1w key=ip => policy line 1 (policy 'a'): rate='1/1w': the period of rate must end with one of the units ms, s, m (minutes), h, d; write 7d for a week",
        "a = token-bucket 1/0s key=ip => policy line 1 (policy 'a'): rate='1/0s': period must be > 0 but was 0s",
        "a = token-bucket 1/99999999999999999d key=ip => policy line 1 (policy 'a'): rate='1/99999999999999999d': the period of rate is too large: at most 26687d (about 73 years)",
        "a = token-bucket 10/1s burst=0 key=ip => policy line 1 (policy 'a'): burst='0': burst must be >= 1 but was 0",
        "a = token-bucket 10/1s burst=lots key=ip => policy line 1 (policy 'a'): burst='lots': burst must be a whole number, e.g. 20",
        "a = token-bucket 10/1s burst=1 burst=2 key=ip => policy line 1 (policy 'a'): burst='2': 'burst' is given twice",
        "a = token-bucket 10/1s Burst=1 key=ip => policy line 1 (policy 'a'): Burst='1': unknown option for token-bucket; did you mean 'burst'? Known options: [allow, burst, cost, count, dry-run, key, match, skip, status, unresolved]",
        "a = token-bucket 10/1s key=ip 20 => policy line 1 (policy 'a'): argument='20': positional arguments must come right after the algorithm, before name=value options",
        "a = token-bucket 10/1s 20 key=ip => policy line 1 (policy 'a'): argument='20': unexpected argument for token-bucket; options are written name=value, known options: [allow, burst, cost, count, dry-run, key, match, skip, status, unresolved]",
        "a = token-bucket 10/1s slots=3 key=ip => policy line 1 (policy 'a'): slots='3': unknown option for token-bucket; known options: [allow, burst, cost, count, dry-run, key, match, skip, status, unresolved]",
        "a = token-bucket 10/1s => policy line 1 (policy 'a'): key (missing): every policy needs key=... (ip, header:<name>, principal, attribute:<name>, global, constant:<value>, or a chain like principal|ip)",
        "a = token-bucket 10/1s key=cookie => policy line 1 (policy 'a'): key='cookie': key must be ip, header:<name>, principal, attribute:<name>, global, constant:<value>, bean:<name> or a chain of them joined by '|' but was 'cookie'",
        "a = token-bucket 10/1s key=ip:24 => policy line 1 (policy 'a'): key='ip:24': key ip takes no ':' argument but was 'ip:24'",
        "a = token-bucket 10/1s key=header: => policy line 1 (policy 'a'): key='header:': key header needs a name, e.g. header:X-Api-Key",
        "a = token-bucket 10/1s key=header:X(1) => policy line 1 (policy 'a'): key='header:X(1)': header name must be an HTTP token but was 'X(1)'",
        "a = token-bucket 10/1s key=principal| => policy line 1 (policy 'a'): key='principal|': key must be ip, header:<name>, principal, attribute:<name>, global, constant:<value>, bean:<name> or a chain of them joined by '|' but was ''",
        "a = token-bucket 10/1s key=ip match=api/* => policy line 1 (policy 'a'): match='api/*': match pattern must start with '/' or '*' but was 'api/*' in 'api/*'",
        "a = token-bucket 10/1s key=ip match=/a,,/b => policy line 1 (policy 'a'): match='/a,,/b': match rule must not be empty in '/a,,/b'",
        "a = token-bucket 10/1s key=ip match=P0ST:/a => policy line 1 (policy 'a'): match='P0ST:/a': match method must be an HTTP method name but was 'P0ST' in 'P0ST:/a'",
        "a = token-bucket 10/1s key=ip cost=0 => policy line 1 (policy 'a'): cost='0': cost must be >= 1 but was 0 (policy 'a')",
        "a = token-bucket 10/1s key=ip cost=11 => policy line 1 (policy 'a'): cost='11': cost is too large: at most the limit, 10",
        "a = token-bucket 10/1s key=ip cost=1.5 => policy line 1 (policy 'a'): cost='1.5': cost must be a whole number, e.g. 1",
        "a = token-bucket 10/1s key=ip status=200 => policy line 1 (policy 'a'): status='200': status must be between 400 and 599 but was 200 (policy 'a')",
        "a = token-bucket 10/1s key=ip dry-run=yes => policy line 1 (policy 'a'): dry-run='yes': dry-run must be true or false",
        "a = token-bucket 10/1s key=ip allow=10.0.0.0/8,a|b => policy line 1 (policy 'a'): allow='10.0.0.0/8,a|b': allow entry must not contain whitespace, '|' or control characters but was 'a|b'",
        "a = token-bucket 10/1s key=ip allow=, => policy line 1 (policy 'a'): allow=',': allow entry must not be empty",
        "a = token-bucket 2000000000/1ms key=ip => policy line 1 (policy 'a'): rate='2000000000/1ms': the permits of rate are too large: at most 1000000 per 1ms (one per nanosecond)",
        "a = fixed-window 5/1m align=monday key=ip => policy line 1 (policy 'a'): align='monday': align must be epoch or first-request",
        "a = sliding-window 5/1m slots=0 key=ip => policy line 1 (policy 'a'): slots='0': slots must be between 1 and 1024 but was 0",
        "a = sliding-window 5/1m slots=99999999999 key=ip => policy line 1 (policy 'a'): slots='99999999999': slots is too large: at most 1024",
        "a = gcra 5/1m burst=-1 key=ip => policy line 1 (policy 'a'): burst='-1': burst must be >= 0 but was -1",
        "a = leaky-bucket 5/1m capacity=0 key=ip => policy line 1 (policy 'a'): capacity='0': capacity must be >= 1 but was 0",
        "a = shaping 5/1s slack=-1 key=ip => policy line 1 (policy 'a'): slack='-1': slack must be >= 0 but was -1",
        "a = shaping 5/1s max-delay=1 key=ip => policy line 1 (policy 'a'): max-delay='1': max-delay must end with one of the units ms, s, m (minutes), h, d",
        "a = shaping 5/1s max-delay=-1s key=ip => policy line 1 (policy 'a'): max-delay='-1s': max-delay must not be negative",
        "a = shaping 5/1s start=earnd key=ip => policy line 1 (policy 'a'): start='earnd': start must be empty (no slack banked, as uber-go/ratelimit's New) or earned (slack already earned, idle keys evicted without loss); did you mean 'earned'?",
        "a = concurrency key=global => policy line 1 (policy 'a'): max-in-flight (missing): concurrency needs max-in-flight as a whole number right after its name",
        "a = concurrency 0 key=global => policy line 1 (policy 'a'): max-in-flight='0': max-in-flight must be >= 1 but was 0",
        "a = concurrency 5/1s key=global => policy line 1 (policy 'a'): max-in-flight='5/1s': max-in-flight must be a whole number, e.g. 50",
        "a = concurrency 5 max-wait=soon key=global => policy line 1 (policy 'a'): max-wait='soon': max-wait must be a whole number followed by ms, s, m, h or d, e.g. 500ms, 30s, 1m, 2h, 1d",
        "a = sliding-log 10001/1h key=ip => policy line 1 (policy 'a'): limit='10001/1h': limit must be at most 10000 for a sliding log (it keeps one 8-byte timestamp per permit and key) but was 10001; use a sliding-window or a token-bucket instead",
        "a = sliding-log 5 key=ip => policy line 1 (policy 'a'): limit='5': limit must be written permits/period, e.g. 100/1m",
        "a = warm-up 10/1s key=ip => policy line 1 (policy 'a'): warm-up (missing): warm-up needs warm-up=DURATION, the time to reach the stable rate, e.g. warm-up=30s",
        "a = warm-up 10/1s warm-up=30s cold-factor=x key=ip => policy line 1 (policy 'a'): cold-factor='x': cold-factor must be a decimal number such as 3 or 2.5",
        "a = warm-up 10/1s warm-up=30s cold-factor=0.5 key=ip => policy line 1 (policy 'a'): cold-factor='0.5': cold-factor must be between 1.0 and 1000.0 but was 0.5",
        "a = smooth-bursty 5/1s max-burst=-1s key=ip => policy line 1 (policy 'a'): max-burst='-1s': max-burst must not be negative",
        "a = smooth-bursty 5/1s max-burst=30000d key=ip => policy line 1 (policy 'a'): max-burst='30000d': max-burst is too large: at most 26687d (about 73 years)",
    })
    void parseLine_invalid_namesLineParameterAndValue(String line, String message) {
        ConfigException e = assertThrows(ConfigException.class, () -> Policy.parse(line));

        assertEquals(message, e.getMessage());
    }

    @Test
    void parseLine_empty_isRefused() {
        assertEquals("policy line 1: policy='  ': a policy line must not be empty",
                assertThrows(ConfigException.class, () -> Policy.parse("  ")).getMessage());
    }

    @Test
    void parse_duplicateNames_nameTheSecondLine() {
        ConfigException e = assertThrows(ConfigException.class, () -> PolicyParser.parse(
                "a = token-bucket 1/1s key=ip\n\na = fixed-window 1/1s key=ip", "init-param 'policies'"));

        assertEquals("init-param 'policies' line 3 (policy 'a'): name='a': policy names must be unique but 'a' "
                + "is defined twice", e.getMessage());
        assertEquals(3, e.line());
        assertEquals("name", e.parameter());
        assertEquals("a", e.value());
        assertEquals("init-param 'policies'", e.source());
    }

    @Test
    void parse_errorOnALaterLine_namesThatLine() {
        ConfigException e = assertThrows(ConfigException.class, () -> PolicyParser.parse(
                "# comment\na = token-bucket 1/1s key=ip\nb = token-bucket 1/1s key=ip burst=x", "sluice.properties"));

        assertEquals("sluice.properties line 3 (policy 'b'): burst='x': burst must be a whole number, e.g. 20", e.getMessage());
    }

    @Test
    void durations_everyUnit() {
        assertEquals(Duration.ofMillis(250), Durations.parse("d", "250ms", false));
        assertEquals(Duration.ofSeconds(30), Durations.parse("d", "30s", false));
        assertEquals(Duration.ofMinutes(1), Durations.parse("d", "m", true));
        assertEquals(Duration.ofHours(2), Durations.parse("d", "2h", false));
        assertEquals(Duration.ofDays(1), Durations.parse("d", "1d", false));
        assertEquals(Duration.ofDays(26687), Durations.parse("d", "26687d", false));
        assertEquals("max-wait must be a whole number followed by ms, s, m, h or d, e.g. 500ms, 30s, 1m, 2h, 1d",
                assertThrows(IllegalArgumentException.class, () -> Durations.parse("max-wait", "s", false)).getMessage());
        assertEquals("max-wait is too large: at most 2305843009s (about 73 years)",
                assertThrows(IllegalArgumentException.class,
                        () -> Durations.parse("max-wait", "99999999999999999999s", false)).getMessage());
        assertEquals("max-wait is too large: at most 26687d (about 73 years)",
                assertThrows(IllegalArgumentException.class, () -> Durations.parse("max-wait", "26688d", false))
                        .getMessage());
    }
}
