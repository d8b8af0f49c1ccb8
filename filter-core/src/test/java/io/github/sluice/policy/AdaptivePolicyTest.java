package io.github.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.adaptive.Aimd;
import io.github.sluice.adaptive.Bbr;
import io.github.sluice.adaptive.Gradient;
import io.github.sluice.adaptive.Vegas;
import io.github.sluice.key.KeyResolvers;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code adaptive <rule> ...} in the policy language equals the builders. */
class AdaptivePolicyTest {

    @Test
    void parse_issueExample_equalsTheBuilder() {
        assertEquals(Policy.builder("api").algorithm(Gradient.builder().min(5).max(500).initial(20).build())
                        .key(KeyResolvers.global()).status(503).build(),
                Policy.parse("api = adaptive gradient min=5 max=500 initial=20 key=global status=503"));
    }

    @Test
    void parse_everyRuleAndOption_equalsTheBuilders() {
        assertEquals(Gradient.builder().min(2).max(50).initial(10).idle(Duration.ofMinutes(5)).samples(16)
                        .window(Duration.ofMillis(500)).tolerance(2).smoothing(0.5).queue(8).longWindow(100).build(),
                Policy.parse("a = adaptive gradient min=2 max=50 initial=10 idle=5m samples=16 window=500ms"
                        + " tolerance=2 smoothing=0.5 queue=8 long-window=100 key=global").algorithm());
        assertEquals(Vegas.builder().alpha(2).beta(4).probe(10).build(),
                Policy.parse("a = adaptive vegas alpha=2 beta=4 probe=10 key=global").algorithm());
        assertEquals(Aimd.builder().backoff(0.5).latency(Duration.ofMillis(200)).build(),
                Policy.parse("a = adaptive aimd backoff=0.5 latency=200ms key=ip").algorithm());
        Bbr bbr = (Bbr) Policy.parse("a = adaptive bbr cpu=0.9 window=5s buckets=50 cool-down=2s key=global")
                .algorithm();
        assertEquals(0.9, bbr.cpu());
        assertEquals(Duration.ofSeconds(5).toNanos(), bbr.statsWindowNanos());
        assertEquals(50, bbr.buckets());
        assertEquals(Duration.ofSeconds(2).toNanos(), bbr.coolDownNanos());
    }

    @Test
    void parse_unknownRule_suggestsTheNearest() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> Policy.parse("a = adaptive gradiant min=5 key=global"));
        assertTrue(e.getMessage().contains("gradiant") && e.getMessage().contains("gradient"), e.getMessage());
    }

    @Test
    void parse_missingRule_saysWhatIsNeeded() {
        ConfigException e = assertThrows(ConfigException.class, () -> Policy.parse("a = adaptive key=global"));
        assertTrue(e.getMessage().contains("gradient, vegas, aimd or bbr"), e.getMessage());
    }

    @Test
    void parse_minAboveMax_namesTheValues() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> Policy.parse("a = adaptive vegas min=50 max=10 key=global"));
        assertTrue(e.getMessage().contains("min must be <= max (10) but was 50"), e.getMessage());
    }

    @Test
    void parse_optionOfAnotherRule_isRefused() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> Policy.parse("a = adaptive vegas tolerance=2 key=global"));
        assertTrue(e.getMessage().contains("tolerance"), e.getMessage());
    }
}
