package io.github.sluice.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Rate;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The algorithms' builders and {@code of(...)} factories speak one vocabulary: a setter name has
 * one meaning, and one argument type, on every algorithm (no {@code leakRate} here and
 * {@code rate} there), and no factory takes two arguments of one type, which a caller could swap.
 */
class BuilderVocabularyTest {

    private static final List<Class<?>> ALGORITHMS = List.of(TokenBucket.class, Gcra.class, FixedWindow.class,
            SlidingWindow.class, SlidingLog.class, LeakyBucket.class, ShapingLeakyBucket.class, WarmUp.class,
            SmoothBursty.class, Concurrency.class);

    /** Every setter name, with the argument types it may take. */
    private static final Map<String, Set<Class<?>>> VOCABULARY = Map.ofEntries(
            Map.entry("rate", Set.of(Rate.class, double.class)),
            Map.entry("burst", Set.of(long.class)),
            Map.entry("capacity", Set.of(long.class)),
            Map.entry("limit", Set.of(long.class)),
            Map.entry("window", Set.of(Duration.class)),
            Map.entry("slots", Set.of(int.class)),
            Map.entry("alignment", Set.of(FixedWindow.Alignment.class)),
            Map.entry("calendar", Set.of(CalendarPeriod.class)),
            Map.entry("start", Set.of(ShapingLeakyBucket.Start.class)),
            Map.entry("slack", Set.of(long.class)),
            Map.entry("maxDelay", Set.of(Duration.class)),
            Map.entry("warmUp", Set.of(Duration.class)),
            Map.entry("coldFactor", Set.of(double.class)),
            Map.entry("maxBurst", Set.of(Duration.class)),
            Map.entry("maxInFlight", Set.of(long.class)),
            Map.entry("maxWait", Set.of(Duration.class)));

    @Test
    void everyBuilderSetter_isAWordOfTheVocabulary_withItsOneType() {
        List<String> strays = new ArrayList<>();
        for (Class<?> algorithm : ALGORITHMS) {
            Class<?> builder = builderOf(algorithm);
            for (Method m : builder.getDeclaredMethods()) {
                if (!Modifier.isPublic(m.getModifiers()) || m.getName().equals("build")) {
                    continue;
                }
                Set<Class<?>> types = VOCABULARY.get(m.getName());
                if (types == null || m.getParameterCount() != 1 || !types.contains(m.getParameterTypes()[0])) {
                    strays.add(algorithm.getSimpleName() + ".Builder." + m.getName()
                            + Arrays.toString(m.getParameterTypes()));
                }
            }
        }
        assertEquals(List.of(), strays);
    }

    @Test
    void everyRateBasedAlgorithm_takesItsRateAsARate() {
        for (Class<?> algorithm : List.of(TokenBucket.class, Gcra.class, LeakyBucket.class,
                ShapingLeakyBucket.class, WarmUp.class, SmoothBursty.class)) {
            assertTrue(Arrays.stream(builderOf(algorithm).getMethods())
                    .anyMatch(m -> m.getName().equals("rate") && m.getParameterTypes()[0] == Rate.class),
                    algorithm.getSimpleName() + ".Builder.rate(Rate)");
            assertTrue(Arrays.stream(algorithm.getMethods())
                    .anyMatch(m -> m.getName().equals("of") && m.getParameterTypes()[0] == Rate.class),
                    algorithm.getSimpleName() + ".of(Rate, ...)");
        }
    }

    @Test
    void everyAlgorithm_hasAnOf_whoseArgumentsCannotBeSwapped() {
        Map<String, String> found = new TreeMap<>();
        for (Class<?> algorithm : ALGORITHMS) {
            for (Method m : algorithm.getDeclaredMethods()) {
                if (m.getName().equals("of") && Modifier.isStatic(m.getModifiers())
                        && Modifier.isPublic(m.getModifiers())) {
                    Set<Class<?>> distinct = new HashSet<>(Arrays.asList(m.getParameterTypes()));
                    assertEquals(m.getParameterCount(), distinct.size(),
                            algorithm.getSimpleName() + ".of" + Arrays.toString(m.getParameterTypes())
                                    + " takes two arguments of one type");
                    found.put(algorithm.getSimpleName(), Arrays.toString(m.getParameterTypes()));
                }
            }
        }
        assertEquals(ALGORITHMS.size(), found.size(), "algorithms with an of(...): " + found);
    }

    private static Class<?> builderOf(Class<?> algorithm) {
        return Arrays.stream(algorithm.getDeclaredClasses()).filter(c -> c.getSimpleName().equals("Builder"))
                .findFirst().orElseThrow(() -> new AssertionError(algorithm.getSimpleName() + " has no Builder"));
    }
}
