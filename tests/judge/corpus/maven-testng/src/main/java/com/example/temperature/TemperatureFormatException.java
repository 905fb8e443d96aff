package com.example.temperature;

/** Text that is not a temperature. */
public class TemperatureFormatException extends RuntimeException {

    public TemperatureFormatException(String message) {
        super(message);
    }
}
