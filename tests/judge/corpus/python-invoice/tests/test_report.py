import unittest

from invoicekit.report import customer_label, paid_ratio


class CustomerReportTest(unittest.TestCase):
    def test_label_capitalises_every_word(self):
        self.assertEqual(customer_label("ada  lovelace"), "Ada Lovelace")

    def test_label_of_a_single_name(self):
        self.assertEqual(customer_label("grace"), "Grace")

    def test_paid_ratio(self):
        self.assertAlmostEqual(paid_ratio(200, 300), 0.6667, places=3)

    def test_paid_ratio_of_empty_invoice(self):
        self.assertEqual(paid_ratio(0, 0), 1.0)


if __name__ == "__main__":
    unittest.main()
