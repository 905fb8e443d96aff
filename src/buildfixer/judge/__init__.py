"""The anti-reward-hacking judge: static rules over a patch, and the tests run before and after it."""
