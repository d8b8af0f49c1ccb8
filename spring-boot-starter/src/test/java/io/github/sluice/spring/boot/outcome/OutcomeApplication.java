package io.github.sluice.spring.boot.outcome;

import io.github.sluice.spring.boot.web.RateLimited;
import java.util.concurrent.CompletableFuture;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.server.ResponseStatusException;

/**
 * A login that counts only failures, limited by {@code @RateLimited}: answered directly, by an
 * exception Spring resolves to 401, by one it does not resolve (500), and asynchronously.
 */
@SpringBootApplication
public class OutcomeApplication {

    /** Creates the application; Boot does. */
    public OutcomeApplication() {
    }

    /** The login endpoints, each holding the {@code login} reservation and an {@code inflight} permit. */
    @RestController
    @RateLimited({"login", "inflight"})
    static class Login {
        @GetMapping("/login")
        ResponseEntity<String> login(@RequestParam String password) {
            return "open-sesame".equals(password) ? ResponseEntity.ok("welcome")
                    : ResponseEntity.status(HttpStatus.UNAUTHORIZED).body("wrong password");
        }

        @GetMapping("/login/refused")
        String refused() {
            throw new ResponseStatusException(HttpStatus.UNAUTHORIZED, "wrong password");
        }

        @GetMapping("/login/throw")
        String fail() {
            throw new IllegalStateException("thrown by the handler on purpose");
        }

        @GetMapping("/login/deferred")
        DeferredResult<ResponseEntity<String>> deferred(@RequestParam int code) {
            DeferredResult<ResponseEntity<String>> result = new DeferredResult<>(10_000L);
            CompletableFuture.runAsync(() -> result.setResult(ResponseEntity.status(code).body("deferred")));
            return result;
        }
    }
}
