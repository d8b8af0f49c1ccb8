package io.github.sluice.spring.boot;

import io.github.sluice.spring.boot.filealone.FileAloneApplication;

/** A policies file alone turns Sluice on, on Boot 3.5 and its default container, Tomcat. */
class PolicyFileAloneTest extends PolicyFileAloneContract {

    @Override
    Class<?>[] sources() {
        return new Class<?>[] {FileAloneApplication.class};
    }
}
