package com.example.temperature;

/** Conversions between degrees Celsius and Fahrenheit, and readings written as "21.5C". */
public final class Temperature {

    private Temperature() {
    }

    public static double toFahrenheit(double celsius) {
        return Math.round(celsius * 9 / 5) + 32;
    }

    /** "21.5C" is 21.5; anything else is a {@link TemperatureFormatException}. */
    public static double parseCelsius(String text) {
        String reading = text.trim();
        char unit = reading.charAt(reading.length() - 1);
        if (unit != 'C') {
            throw new TemperatureFormatException("expected degrees Celsius: " + text);
        }
        try {
            return Double.parseDouble(reading.substring(0, reading.length() - 1));
        } catch (NumberFormatException e) {
            throw new TemperatureFormatException("not a number: " + text);
        }
    }
}
