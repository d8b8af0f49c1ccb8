package io.github.sluice.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.sluice.policy.ConfigException;
import io.github.sluice.policy.Policy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every value of the policy language and of the settings is validated, and a refusal says what
 * is wrong in the user's own terms: the parameter, the value, the rule, the maximum of a number
 * that is too large (never a 19-digit Long bound), durations as the user writes them (never
 * ISO-8601), a suggestion for a near miss of a known name. Each row is one refused value and
 * the whole message it gets.
 */
class ConfigValidationTest {

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
        // addresses in allow=
        "allow=10.0.0.0/33 => allow='10.0.0.0/33': allow entry '10.0.0.0/33': the prefix of an IPv4 network must be between 0 and 32 but was 33",
        "allow=2001:db8::/129 => allow='2001:db8::/129': allow entry '2001:db8::/129': the prefix of an IPv6 network must be between 0 and 128 but was 129",
        "allow=192.168.01.0/24 => allow='192.168.01.0/24': allow entry '192.168.01.0/24': IPv4 octet '01' has a leading zero, which some systems read as octal; write 192.168.1.0/24",
        "allow=010.0.0.1 => allow='010.0.0.1': allow entry '010.0.0.1': IPv4 octet '010' has a leading zero, which some systems read as octal; write 10.0.0.1",
        "allow=10.0.0.1:8080 => allow='10.0.0.1:8080': allow entry '10.0.0.1:8080': a network has no port; write 10.0.0.1",
        "allow=[2001:db8::1]:443 => allow='[2001:db8::1]:443': allow entry '[2001:db8::1]:443': a network has no port; write 2001:db8::1",
        "allow=[2001:db8::]/32 => allow='[2001:db8::]/32': allow entry '[2001:db8::]/32': write an IPv6 network without brackets: 2001:db8::/32",
        "allow=fe80::1%eth0 => allow='fe80::1%eth0': allow entry 'fe80::1%eth0': a network has no zone id; write fe80::1",
        "allow=10.0.0.0/08 => allow='10.0.0.0/08': allow entry '10.0.0.0/08': the prefix has a leading zero; write 10.0.0.0/8",
        "allow=10.1.2.3/8 => allow='10.1.2.3/8': allow entry '10.1.2.3/8': bits are set after the /8 prefix; write 10.0.0.0/8 for the network, or 10.1.2.3/32 for the one address",
        "allow=1.2.3 => allow='1.2.3': allow entry '1.2.3': an IPv4 address has 4 octets but this has 3",
        "allow=1.2.3.4.5 => allow='1.2.3.4.5': allow entry '1.2.3.4.5': an IPv4 address has 4 octets but this has 5",
        "allow=256.0.0.0/8 => allow='256.0.0.0/8': allow entry '256.0.0.0/8': IPv4 octet '256' is above 255",
        "allow=10.0.0.0/8/8 => allow='10.0.0.0/8/8': allow entry '10.0.0.0/8/8': a network has one '/' before its prefix but this has 2",
        "allow=10.0.0.0/ => allow='10.0.0.0/': allow entry '10.0.0.0/': the prefix after '/' is missing",
        "allow=10.0.0.0/x => allow='10.0.0.0/x': allow entry '10.0.0.0/x': the prefix must be a whole number between 0 and 32 but was 'x'",
        "allow=١٠.0.0.0/8 => allow='١٠.0.0.0/8': allow entry '١٠.0.0.0/8': '١' (U+0661) is not an ASCII digit; write addresses with 0-9",
        "allow=10.0.0.0/٨ => allow='10.0.0.0/٨': allow entry '10.0.0.0/٨': the prefix must be a whole number between 0 and 32 but was '٨'",
        "allow=2001:db8::g => allow='2001:db8::g': allow entry '2001:db8::g': 'g' is not a hex digit",
        "allow=2001:db8::1::2 => allow='2001:db8::1::2': allow entry '2001:db8::1::2': '::' may appear only once in an IPv6 address",
        "allow=2001:db8:12345::1 => allow='2001:db8:12345::1': allow entry '2001:db8:12345::1': an IPv6 group has at most 4 hex digits but '12345' has 5",
        "allow=1:2:3:4:5:6:7:8:9 => allow='1:2:3:4:5:6:7:8:9': allow entry '1:2:3:4:5:6:7:8:9': an IPv6 address has 8 groups but this has 9",
        "allow=1:2:3:4:5:6:7 => allow='1:2:3:4:5:6:7': allow entry '1:2:3:4:5:6:7': an IPv6 address has 8 groups, or fewer with '::', but this has 7 and no '::'",
        "allow=sha256:abc => allow='sha256:abc': allow entry 'sha256:abc' starts with 'sha256:', which only digests do, but is not one (sha256: and 32 base64url characters): no key could ever match it",
        // numbers
        "burst=١٠ => burst='١٠': burst must be written with the ASCII digits 0-9, but '١' (U+0661) is not one",
        "burst=+5 => burst='+5': burst must be a whole number, e.g. 20",
        "burst=99999999999999999999 => burst='99999999999999999999': burst is too large: at most 23058430092 for a rate of 10/1s (a full bucket must refill within about 73 years)",
        "burst=23058430093 => burst='23058430093': burst is too large: at most 23058430092 for a rate of 10/1s (a full bucket must refill within about 73 years)",
        "cost=99999999999999999999 => cost='99999999999999999999': cost is too large: at most the limit, 10",
        "status=99999999999999999999 => status='99999999999999999999': status is too large: it must be between 400 and 599",
        // flags and options
        "brust=10 => brust='10': unknown option for token-bucket; did you mean 'burst'? Known options: [allow, burst, cost, count, dry-run, key, match, skip, status, unresolved]",
        "Burst=10 => Burst='10': unknown option for token-bucket; did you mean 'burst'? Known options: [allow, burst, cost, count, dry-run, key, match, skip, status, unresolved]",
        "dry_run=true => dry_run='true': unknown option for token-bucket; did you mean 'dry-run'? Known options: [allow, burst, cost, count, dry-run, key, match, skip, status, unresolved]",
        "dryrun => flag='dryrun': unknown flag; did you mean 'dry-run'? The only flag is dry-run; other options are written name=value",
        "DRY-RUN => flag='DRY-RUN': unknown flag; did you mean 'dry-run'? The only flag is dry-run; other options are written name=value",
        "burst => argument='burst': burst needs a value: write burst=...",
        "dry-run=True => dry-run='True': dry-run must be true or false; did you mean 'true'?",
        "=5 => option='=5': an option must be written name=value",
        "key=ipp => key='ipp': 'key' is given twice",
    })
    void tokenBucketOption_invalid_isRefusedInTheUsersTerms(String option, String message) {
        ConfigException e = assertThrows(ConfigException.class,
                () -> Policy.parse("a = token-bucket 10/1s key=ip " + option));

        assertEquals("policy line 1 (policy 'a'): " + message, e.getMessage());
    }

    /** Guava's {@code create(rate, 0, unit)}: a zero warm-up stores nothing, and is accepted. */
    @Test
    void policyLine_zeroWarmUp_isAcceptedAsGuavaDoes() {
        Policy p = Policy.parse("a = warm-up 10/1s warm-up=0s key=ip");
        assertEquals(0, ((io.github.sluice.algorithm.WarmUp) p.algorithm()).warmUpNanos());
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
        // algorithms and keys
        "tokenbucket 10/1s key=ip => algorithm='tokenbucket': unknown algorithm; did you mean 'token-bucket'? Known algorithms: [token-bucket, gcra, fixed-window, sliding-window, leaky-bucket, concurrency, shaping, sliding-log, warm-up, smooth-bursty, adaptive]",
        "Token-Bucket 10/1s key=ip => algorithm='Token-Bucket': unknown algorithm; did you mean 'token-bucket'? Known algorithms: [token-bucket, gcra, fixed-window, sliding-window, leaky-bucket, concurrency, shaping, sliding-log, warm-up, smooth-bursty, adaptive]",
        "token-bucket 10/1s key=ipp => key='ipp': key must be ip, header:<name>, principal, attribute:<name>, global, constant:<value>, bean:<name> or a chain of them joined by '|' but was 'ipp'; did you mean 'ip'?",
        "token-bucket 10/1s key=IP => key='IP': key must be ip, header:<name>, principal, attribute:<name>, global, constant:<value>, bean:<name> or a chain of them joined by '|' but was 'IP'; did you mean 'ip'?",
        "token-bucket 10/1s key=principle|ip => key='principle|ip': key must be ip, header:<name>, principal, attribute:<name>, global, constant:<value>, bean:<name> or a chain of them joined by '|' but was 'principle'; did you mean 'principal'?",
        "token-bucket 10/1s key=headers:X-Api-Key => key='headers:X-Api-Key': key must be ip, header:<name>, principal, attribute:<name>, global, constant:<value>, bean:<name> or a chain of them joined by '|' but was 'headers:X-Api-Key'; did you mean 'header:X-Api-Key'?",
        "token-bucket 10/1s key=ip|ip => key='ip|ip': a key fallback chain must not name 'ip' twice",
        "token-bucket 10/1s key=ip|principal => key='ip|principal': a key fallback chain must end at 'ip', which always yields a key, but 'principal' follows it",
        "token-bucket 10/1s keys=ip => key (missing): every policy needs key=... (ip, header:<name>, principal, attribute:<name>, global, constant:<value>, or a chain like principal|ip); did you mean 'key' instead of 'keys'?",
        "fixed-window 5/1m align=Epoch key=ip => align='Epoch': align must be epoch or first-request; did you mean 'epoch'?",
        "fixed-window 5/1m align=first_request key=ip => align='first_request': align must be epoch or first-request; did you mean 'first-request'?",
        "warm-up 10/1s warmup=30s key=ip => warm-up (missing): warm-up needs warm-up=DURATION, the time to reach the stable rate, e.g. warm-up=30s; did you mean 'warm-up' instead of 'warmup'?",
        "shaping 10/1s max-dealy=1s key=ip => max-dealy='1s': unknown option for shaping; did you mean 'max-delay'? Known options: [allow, cost, dry-run, key, match, max-delay, slack, start, status, unresolved]",
        // numbers
        "token-bucket ١٠٠/1m key=ip => rate='١٠٠/1m': the permits of rate must be written with the ASCII digits 0-9, but '١' (U+0661) is not one",
        "token-bucket 99999999999999999999/1m key=ip => rate='99999999999999999999/1m': the permits of rate are too large: at most 60000000000 per 1m (one per nanosecond)",
        "token-bucket 2000000000/1ms key=ip => rate='2000000000/1ms': the permits of rate are too large: at most 1000000 per 1ms (one per nanosecond)",
        "fixed-window 99999999999999999999/1m key=ip => limit='99999999999999999999/1m': the permits of limit are too large: at most 1000000000000000000",
        "fixed-window 1000000000000/1m key=ip => limit='1000000000000/1m': limit must be at most 68719476735 for a window of 1m but was 1000000000000 (one word per key holds the count and 146 years of windows)",
        "sliding-window 5/1m slots=99999999999 key=ip => slots='99999999999': slots is too large: at most 1024",
        "gcra 5/1m burst=-1 key=ip => burst='-1': burst must be >= 0 but was -1",
        "gcra 5/1m burst=99999999999 key=ip => burst='99999999999': burst is too large: at most 192153583 for a rate of 5/1m (a full bucket must refill within about 73 years)",
        "leaky-bucket 5/1m capacity=99999999999 key=ip => capacity='99999999999': capacity is too large: at most 192153584 for a rate of 5/1m (a full bucket must drain within about 73 years)",
        "shaping 5/1m slack=99999999999 key=ip => slack='99999999999': slack is too large: at most 192153583 for a rate of 5/1m and a max-delay of 1s (together they must stay within about 73 years)",
        "concurrency 0 key=global => max-in-flight='0': max-in-flight must be >= 1 but was 0",
        "concurrency 99999999999999999999 key=global => max-in-flight='99999999999999999999': max-in-flight is too large: at most 1000000000000000000",
        "concurrency ５ key=global => max-in-flight='５': max-in-flight must be written with the ASCII digits 0-9, but '５' (U+FF15) is not one",
        "warm-up 10/1s warm-up=30s cold-factor=١.5 key=ip => cold-factor='١.5': cold-factor must be written with the ASCII digits 0-9, but '١' (U+0661) is not one",
        "warm-up 10/1s warm-up=30s cold-factor=0.5 key=ip => cold-factor='0.5': cold-factor must be between 1.0 and 1000.0 but was 0.5",
        "warm-up 10/1s warm-up=30s cold-factor=99999999999 key=ip => cold-factor='99999999999': cold-factor is too large: at most 1000",
        // durations
        "token-bucket 100/١m key=ip => rate='100/١m': the period of rate must be written with the ASCII digits 0-9, but '١' (U+0661) is not one",
        "token-bucket 1/99999999999999999999m key=ip => rate='1/99999999999999999999m': the period of rate is too large: at most 38430716m (about 73 years)",
        "token-bucket 1/9999999999999m key=ip => rate='1/9999999999999m': the period of rate is too large: at most 38430716m (about 73 years)",
        "token-bucket 1/99999999999999999d key=ip => rate='1/99999999999999999d': the period of rate is too large: at most 26687d (about 73 years)",
        "token-bucket 1/0s key=ip => rate='1/0s': period must be > 0 but was 0s",
        "token-bucket 1/1.5s key=ip => rate='1/1.5s': the period of rate must be a whole number of its unit; write 1500ms",
        "token-bucket 1/1min key=ip => rate='1/1min': the period of rate must end with one of the units ms, s, m (minutes), h, d; did you mean '1m'?",
        "token-bucket 1/1M key=ip => rate='1/1M': the period of rate must end with one of the units ms, s, m (minutes), h, d; did you mean '1m'?",
        "token-bucket 1/1w key=ip => rate='1/1w': the period of rate must end with one of the units ms, s, m (minutes), h, d; write 7d for a week",
        "shaping 10/1s max-delay=99999999999d key=ip => max-delay='99999999999d': max-delay is too large: at most 26687d (about 73 years)",
        "shaping 10/1s max-delay=-1s key=ip => max-delay='-1s': max-delay must not be negative",
        "shaping 10/1s max-delay=1ns key=ip => max-delay='1ns': max-delay must end with one of the units ms, s, m (minutes), h, d; durations below a millisecond are not supported",
        "shaping 10/1s max-delay=1sec key=ip => max-delay='1sec': max-delay must end with one of the units ms, s, m (minutes), h, d; did you mean '1s'?",
        "shaping 10/1s max-delay=2.25s key=ip => max-delay='2.25s': max-delay must be a whole number of its unit; write 2250ms",
        "shaping 10/1s max-delay=١s key=ip => max-delay='١s': max-delay must be written with the ASCII digits 0-9, but '١' (U+0661) is not one",
        "warm-up 10/1s warm-up=8d key=ip => warm-up='8d': warm-up must be at most 7d but was 8d",
        "concurrency 5 max-wait=99999999999999999999ms key=global => max-wait='99999999999999999999ms': max-wait is too large: at most 2305843009213ms (about 73 years)",
    })
    void policyLine_invalid_isRefusedInTheUsersTerms(String spec, String message) {
        ConfigException e = assertThrows(ConfigException.class, () -> Policy.parse("a = " + spec));

        assertEquals("policy line 1 (policy 'a'): " + message, e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
        "trusted-proxy = 10.0.0.0/8 => trusted-proxy='10.0.0.0/8': unknown setting; did you mean 'trusted-proxies'? Known settings: [config, config-reload, config-watch, config-watch-interval, degraded-header, denial-body, denial-content-type, dry-run, exempt-methods, expose-headers, forwarded-header, headers, headers-on, ipv6-prefix, listener, max-key-length, max-keys, memory-budget, no-policies, policies, problem-type, shards, top-clients, top-clients-admitted, trusted-proxies] and policy.<name>",
        "polcy.per-ip = token-bucket 1/s key=ip => polcy.per-ip='token-bucket 1/s key=ip': unknown setting; did you mean 'policy.per-ip'? Known settings: [config, config-reload, config-watch, config-watch-interval, degraded-header, denial-body, denial-content-type, dry-run, exempt-methods, expose-headers, forwarded-header, headers, headers-on, ipv6-prefix, listener, max-key-length, max-keys, memory-budget, no-policies, policies, problem-type, shards, top-clients, top-clients-admitted, trusted-proxies] and policy.<name>",
        "Headers = draft => Headers='draft': unknown setting; did you mean 'headers'? Known settings: [config, config-reload, config-watch, config-watch-interval, degraded-header, denial-body, denial-content-type, dry-run, exempt-methods, expose-headers, forwarded-header, headers, headers-on, ipv6-prefix, listener, max-key-length, max-keys, memory-budget, no-policies, policies, problem-type, shards, top-clients, top-clients-admitted, trusted-proxies] and policy.<name>",
        "headers = Draft => headers='Draft': headers must be one of draft, draft-06, x-ratelimit, none but was 'Draft'; did you mean 'draft'?",
        "headers-on = denials => headers-on='denials': headers-on must be always or denial; did you mean 'denial'?",
        "forwarded-header = X-Forwarded-For => forwarded-header='X-Forwarded-For': forwarded-header must be x-forwarded-for or forwarded; did you mean 'x-forwarded-for'?",
        "listener = logs => listener='logs': listener must be log or none; did you mean 'log'?",
        "expose-headers = True => expose-headers='True': expose-headers must be true or false; did you mean 'true'?",
        "trusted-proxies = 10.0.0.0/33 => trusted-proxies='10.0.0.0/33': CIDR '10.0.0.0/33': the prefix of an IPv4 network must be between 0 and 32 but was 33",
        "trusted-proxies = 10.0.0.1:8080 => trusted-proxies='10.0.0.1:8080': CIDR '10.0.0.1:8080': a network has no port; write 10.0.0.1",
        "trusted-proxies = 192.168.01.0/24 => trusted-proxies='192.168.01.0/24': CIDR '192.168.01.0/24': IPv4 octet '01' has a leading zero, which some systems read as octal; write 192.168.1.0/24",
        "trusted-proxies = 10.0.0.0/8; 192.168.0.0/16 => trusted-proxies='10.0.0.0/8;': CIDR '10.0.0.0/8;': the prefix must be a whole number between 0 and 32 but was '8;'",
        "trusted-proxies = 0.0.0.0/0 => trusted-proxies='0.0.0.0/0': trusted proxies must not include 0.0.0.0/0: trusting every address lets any client choose its own key through the forwarding header",
        "trusted-proxies = ::/0 => trusted-proxies='::/0': trusted proxies must not include ::/0: trusting every address lets any client choose its own key through the forwarding header",
        "ipv6-prefix = 99999999999 => ipv6-prefix='99999999999': ipv6-prefix is too large: at most 128",
        "ipv6-prefix = ６４ => ipv6-prefix='６４': ipv6-prefix must be written with the ASCII digits 0-9, but '６' (U+FF16) is not one",
        "ipv6-prefix = 0 => ipv6-prefix='0': ipv6-prefix must be between 1 and 128 but was 0",
        "max-key-length = 99999999999 => max-key-length='99999999999': max-key-length is too large: at most 4096",
        "max-keys = 99999999999 => max-keys='99999999999': max-keys is too large: at most 1000000000",
        "max-keys = 0 => max-keys='0': max-keys must be >= 1 but was 0",
        "shards = 99999999999 => shards='99999999999': shards is too large: at most 65536",
        "shards = -4 => shards='-4': shards must be a power of two between 1 and 65536 but was -4",
        "shards = 1e3 => shards='1e3': shards must be a whole number, e.g. 16",
        "top-clients = 1001 => top-clients='1001': top-clients is too large: at most 1000",
        "top-clients = -1 => top-clients='-1': top-clients must be 0 (off) to 1000 but was -1",
        "top-clients = twenty => top-clients='twenty': top-clients must be a whole number, e.g. 20",
        "top-clients-admitted = yes => top-clients-admitted='yes': top-clients-admitted must be true or false",
        "policy.a = token-bucket 10/1s key=ip burst=1\\n2 => (policy 'a'): burst='1\\u000a2': burst must be a whole number, e.g. 20",
        "policy.per_ip = token-bucket 10/1s key=ip => name='per_ip': policy name must match [a-z0-9-]{1,64} but was 'per_ip'; did you mean 'per-ip'?",
    })
    void setting_invalid_isRefusedInTheUsersTerms(String text, String message) {
        ConfigException e = assertThrows(ConfigException.class, () -> SluiceConfig.parseProperties(text, "t"));

        assertEquals("t line 1" + (message.startsWith("(") ? " " : ": ") + message, e.getMessage());
    }
}
