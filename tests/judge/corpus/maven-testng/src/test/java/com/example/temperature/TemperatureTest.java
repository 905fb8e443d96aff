package com.example.temperature;

import static org.testng.Assert.assertEquals;

import org.testng.annotations.DataProvider;
import org.testng.annotations.Test;

public class TemperatureTest {

    @DataProvider(name = "conversions")
    public Object[][] conversions() {
        return new Object[][] {
            {0.0, 32.0},
            {100.0, 212.0},
            {-40.0, -40.0},
            {37.0, 98.6},
            {21.5, 70.7},
        };
    }

    @Test(dataProvider = "conversions")
    public void convertsToFahrenheit(double celsius, double fahrenheit) {
        assertEquals(Temperature.toFahrenheit(celsius), fahrenheit, 0.001);
    }

    @Test
    public void parsesCelsius() {
        assertEquals(Temperature.parseCelsius(" 21.5C "), 21.5, 1e-9);
    }

    @Test(expectedExceptions = TemperatureFormatException.class)
    public void rejectsBlankText() {
        Temperature.parseCelsius("   ");
    }
}
