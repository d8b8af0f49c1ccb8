package io.github.sluice.servlet;

import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;

/**
 * Declared in the test webapp's web.xml: hands the filters a store before they are initialised,
 * through {@link SluiceFilter#STORE_ATTRIBUTE}, as an application would hand them a Redis store.
 * Its clock is a frozen {@link FakeClock}, so that rate limits decide the same on a loaded machine.
 */
public class TestStoreListener implements ServletContextListener {

    /** Created by the container, as declared in web.xml. */
    public TestStoreListener() {
    }

    @Override
    public void contextInitialized(ServletContextEvent event) {
        event.getServletContext().setAttribute(SluiceFilter.STORE_ATTRIBUTE,
                ShardedRegistry.builder().clock(new FakeClock()).build());
    }
}
