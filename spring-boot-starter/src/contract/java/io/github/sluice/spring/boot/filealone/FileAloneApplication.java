package io.github.sluice.spring.boot.filealone;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * An application with no {@code sluice.policies.*}: its policies come from the file that
 * {@code sluice.config} names, and nothing else turns Sluice on.
 */
@SpringBootApplication
public class FileAloneApplication {

    /** Creates the application; Boot does. */
    public FileAloneApplication() {
    }

    /** The endpoint the file's policy limits. */
    @RestController
    static class Hello {
        @GetMapping("/hello")
        String hello() {
            return "hello";
        }
    }
}
