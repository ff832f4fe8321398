package hensachi

// CheckDigit computes the check digit of a 5-digit local-government code (総務省 rule: weights
// 6…2, modulus 11), the sixth digit of the code as the code list and many forms write it. code
// must be five ASCII digits.
func CheckDigit(code string) byte {
	sum := 0
	for i := range 5 {
		sum += int(code[i]-'0') * (6 - i)
	}
	return byte('0' + (11-sum%11)%10)
}
