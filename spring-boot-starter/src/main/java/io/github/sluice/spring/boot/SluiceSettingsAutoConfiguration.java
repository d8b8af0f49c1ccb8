package io.github.sluice.spring.boot;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Checks the {@code sluice.*} properties in every application that has the starter, whether or
 * not Sluice is on: an unknown property, or one that configures nothing, fails the start-up naming
 * it (or, where failing would break a documented use, is logged in one WARNING). Without
 * conditions on purpose: a misspelt {@code sluice.polices.per-ip} leaves every other Sluice
 * auto-configuration off, and must still be reported.
 */
@AutoConfiguration
public class SluiceSettingsAutoConfiguration {

    /** Creates the configuration; Boot does. */
    public SluiceSettingsAutoConfiguration() {
    }

    /**
     * The check, run once every bean is defined and before any is created. Static, as a
     * {@link BeanFactoryPostProcessor} must be, so that this configuration is not created early.
     *
     * @return the check
     */
    @Bean
    static BeanFactoryPostProcessor sluiceSettingsCheck() {
        return new SluiceSettingsCheck();
    }
}
