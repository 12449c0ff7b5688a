package certificate

import (
	"fmt"
	"strings"
	"time"
)

// wording is a certificate's fixed text in one language. Conquered,
// Until and ID hold one %s: the date, the date and the certificate id.
// The lines keep the English layout, so languages that put the verb last
// split their sentence around the name and the title.
type wording struct {
	Heading, Certifies, Topic, Pathway string
	Conquered, Until, ID               string
	// date writes a day, such as 1 June 2025.
	date func(t time.Time) string
}

// dayMonthYear returns a date writer for "day month year" languages:
// months are the twelve month names, layout holds %d, %s and %d (day,
// month, year) in the language's order.
func dayMonthYear(layout string, months ...string) func(time.Time) string {
	return func(t time.Time) string {
		return fmt.Sprintf(layout, t.Day(), months[t.Month()-1], t.Year())
	}
}

// yearMonthDay returns a date writer for numeric East Asian dates.
func yearMonthDay(layout string) func(time.Time) string {
	return func(t time.Time) string { return fmt.Sprintf(layout, t.Year(), int(t.Month()), t.Day()) }
}

// wordings are the translations, by lower-case code of input.Languages.
// English is the fallback for the languages that have none yet (fj, mi,
// sm, tl, to). The German matches the learner pages' (handlers/web/signin_i18n.go).
var wordings = map[string]wording{
	"en": {"CERTIFICATE OF ACHIEVEMENT", "This certifies that", "has conquered the topic", "has conquered the pathway",
		"Conquered on %s", "Certified until %s", "Certificate ID %s",
		dayMonthYear("%d %s %d", "January", "February", "March", "April", "May", "June", "July", "August",
			"September", "October", "November", "December")},
	"de": {"ZERTIFIKAT", "Hiermit wird bestätigt, dass", "das folgende Thema abgeschlossen hat",
		"den folgenden Lernpfad abgeschlossen hat", "Abgeschlossen am %s", "Zertifiziert bis %s", "Zertifikat-ID %s",
		dayMonthYear("%d. %s %d", "Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
			"September", "Oktober", "November", "Dezember")},
	"fr": {"CERTIFICAT DE RÉUSSITE", "Nous certifions que", "a validé le sujet", "a validé le parcours",
		"Validé le %s", "Certifié jusqu’au %s", "Identifiant du certificat %s", frenchDate},
	"es": {"CERTIFICADO DE LOGRO", "Se certifica que", "ha completado el tema", "ha completado el itinerario",
		"Completado el %s", "Certificado hasta el %s", "ID del certificado %s",
		dayMonthYear("%d de %s de %d", "enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
			"septiembre", "octubre", "noviembre", "diciembre")},
	"it": {"ATTESTATO DI COMPLETAMENTO", "Si certifica che", "ha completato l’argomento", "ha completato il percorso",
		"Completato il %s", "Certificato fino al %s", "ID attestato %s",
		dayMonthYear("%d %s %d", "gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto",
			"settembre", "ottobre", "novembre", "dicembre")},
	"pt": {"CERTIFICADO DE CONCLUSÃO", "Certificamos que", "concluiu o tópico", "concluiu o percurso",
		"Concluído em %s", "Certificado até %s", "ID do certificado %s",
		dayMonthYear("%d de %s de %d", "janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto",
			"setembro", "outubro", "novembro", "dezembro")},
	"id": {"SERTIFIKAT PENCAPAIAN", "Dengan ini menyatakan bahwa", "telah menyelesaikan topik",
		"telah menyelesaikan jalur pembelajaran", "Diselesaikan pada %s", "Tersertifikasi hingga %s", "ID Sertifikat %s",
		dayMonthYear("%d %s %d", "Januari", "Februari", "Maret", "April", "Mei", "Juni", "Juli", "Agustus",
			"September", "Oktober", "November", "Desember")},
	"ms": {"SIJIL PENCAPAIAN", "Dengan ini disahkan bahawa", "telah menamatkan topik", "telah menamatkan laluan pembelajaran",
		"Ditamatkan pada %s", "Diperakui sehingga %s", "ID Sijil %s",
		dayMonthYear("%d %s %d", "Januari", "Februari", "Mac", "April", "Mei", "Jun", "Julai", "Ogos",
			"September", "Oktober", "November", "Disember")},
	"vi": {"CHỨNG NHẬN HOÀN THÀNH", "Chứng nhận rằng", "đã hoàn thành chủ đề", "đã hoàn thành lộ trình học",
		"Hoàn thành %s", "Chứng nhận có hiệu lực đến %s", "Mã chứng nhận %s",
		func(t time.Time) string {
			return fmt.Sprintf("ngày %d tháng %d năm %d", t.Day(), int(t.Month()), t.Year())
		}},
	"ja": {"修了証", "これは、次の方が", "次のトピックを修了したことを証明するものです", "次のラーニングパスを修了したことを証明するものです",
		"修了日 %s", "認定有効期限 %s", "証明書ID %s", yearMonthDay("%d年%d月%d日")},
	"ko": {"수료증", "이 증서는 다음 분이", "다음 주제를 수료하였음을 증명합니다", "다음 학습 경로를 수료하였음을 증명합니다",
		"수료일 %s", "인증 만료일 %s", "증서 번호 %s", yearMonthDay("%d년 %d월 %d일")},
	"zh-hans": {"结业证书", "兹证明", "已完成以下主题", "已完成以下学习路径",
		"完成日期 %s", "认证有效期至 %s", "证书编号 %s", yearMonthDay("%d年%d月%d日")},
	"zh-hant-hk": {"結業證書", "茲證明", "已完成以下主題", "已完成以下學習路徑",
		"完成日期 %s", "認證有效期至 %s", "證書編號 %s", yearMonthDay("%d年%d月%d日")},
	"hi-in": {"उपलब्धि प्रमाणपत्र", "यह प्रमाणित किया जाता है कि", "ने निम्नलिखित विषय पूरा कर लिया है",
		"ने निम्नलिखित लर्निंग पाथ पूरा कर लिया है", "पूर्ण होने की तिथि %s", "प्रमाणन %s तक मान्य", "प्रमाणपत्र आईडी %s",
		dayMonthYear("%d %s %d", "जनवरी", "फ़रवरी", "मार्च", "अप्रैल", "मई", "जून", "जुलाई", "अगस्त",
			"सितंबर", "अक्तूबर", "नवंबर", "दिसंबर")},
	"ne": {"उपलब्धि प्रमाणपत्र", "यो प्रमाणित गरिन्छ कि", "ले निम्न विषय पूरा गर्नुभएको छ",
		"ले निम्न सिकाइ मार्ग पूरा गर्नुभएको छ", "पूरा भएको मिति %s", "प्रमाणीकरण %s सम्म मान्य", "प्रमाणपत्र आईडी %s",
		dayMonthYear("%d %s %d", "जनवरी", "फेब्रुअरी", "मार्च", "अप्रिल", "मे", "जुन", "जुलाई", "अगस्ट",
			"सेप्टेम्बर", "अक्टोबर", "नोभेम्बर", "डिसेम्बर")},
	"pa-in": {"ਪ੍ਰਾਪਤੀ ਸਰਟੀਫਿਕੇਟ", "ਇਹ ਪ੍ਰਮਾਣਿਤ ਕੀਤਾ ਜਾਂਦਾ ਹੈ ਕਿ", "ਨੇ ਹੇਠ ਲਿਖਿਆ ਵਿਸ਼ਾ ਪੂਰਾ ਕਰ ਲਿਆ ਹੈ",
		"ਨੇ ਹੇਠ ਲਿਖਿਆ ਸਿਖਲਾਈ ਮਾਰਗ ਪੂਰਾ ਕਰ ਲਿਆ ਹੈ", "ਪੂਰਾ ਹੋਣ ਦੀ ਮਿਤੀ %s", "ਪ੍ਰਮਾਣਿਕਤਾ %s ਤੱਕ", "ਸਰਟੀਫਿਕੇਟ ਆਈਡੀ %s",
		dayMonthYear("%d %s %d", "ਜਨਵਰੀ", "ਫ਼ਰਵਰੀ", "ਮਾਰਚ", "ਅਪ੍ਰੈਲ", "ਮਈ", "ਜੂਨ", "ਜੁਲਾਈ", "ਅਗਸਤ",
			"ਸਤੰਬਰ", "ਅਕਤੂਬਰ", "ਨਵੰਬਰ", "ਦਸੰਬਰ")},
	"ta": {"சாதனைச் சான்றிதழ்", "இதன்மூலம் சான்றளிக்கப்படுவது", "கீழ்க்காணும் தலைப்பை நிறைவு செய்துள்ளார்",
		"கீழ்க்காணும் கற்றல் பாதையை நிறைவு செய்துள்ளார்", "நிறைவு செய்த நாள் %s", "%s வரை சான்றிதழ் செல்லுபடியாகும்",
		"சான்றிதழ் எண் %s",
		dayMonthYear("%d %s %d", "ஜனவரி", "பிப்ரவரி", "மார்ச்", "ஏப்ரல்", "மே", "ஜூன்", "ஜூலை", "ஆகஸ்ட்",
			"செப்டம்பர்", "அக்டோபர்", "நவம்பர்", "டிசம்பர்")},
	"te": {"సాధన ధృవీకరణ పత్రం", "దీని ద్వారా ధృవీకరించడమేమనగా", "కింది అంశాన్ని పూర్తి చేశారు",
		"కింది అభ్యాస మార్గాన్ని పూర్తి చేశారు", "పూర్తి చేసిన తేదీ %s", "%s వరకు ధృవీకరణ చెల్లుతుంది", "ధృవీకరణ పత్రం ID %s",
		dayMonthYear("%d %s %d", "జనవరి", "ఫిబ్రవరి", "మార్చి", "ఏప్రిల్", "మే", "జూన్", "జూలై", "ఆగస్టు",
			"సెప్టెంబర్", "అక్టోబర్", "నవంబర్", "డిసెంబర్")},
	"th": {"ประกาศนียบัตรแสดงความสำเร็จ", "ขอรับรองว่า", "ได้สำเร็จหัวข้อ", "ได้สำเร็จเส้นทางการเรียนรู้",
		"สำเร็จเมื่อวันที่ %s", "รับรองถึงวันที่ %s", "รหัสประกาศนียบัตร %s", thaiDate},
}

// frenchDate writes 1er juin 2025, 2 juin 2025...
func frenchDate(t time.Time) string {
	months := []string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
		"septembre", "octobre", "novembre", "décembre"}
	day := fmt.Sprint(t.Day())
	if t.Day() == 1 {
		day = "1er"
	}
	return fmt.Sprintf("%s %s %d", day, months[t.Month()-1], t.Year())
}

// thaiDate writes a date in the Buddhist era, as Thai documents do:
// 1 มิถุนายน พ.ศ. 2568 is 1 June 2025.
func thaiDate(t time.Time) string {
	months := []string{"มกราคม", "กุมภาพันธ์", "มีนาคม", "เมษายน", "พฤษภาคม", "มิถุนายน", "กรกฎาคม", "สิงหาคม",
		"กันยายน", "ตุลาคม", "พฤศจิกายน", "ธันวาคม"}
	return fmt.Sprintf("%d %s พ.ศ. %d", t.Day(), months[t.Month()-1], t.Year()+543)
}

// wordingFor returns the wording of language code lang (any case), or
// English when there is no translation.
func wordingFor(lang string) wording {
	if w, ok := wordings[strings.ToLower(lang)]; ok {
		return w
	}
	return wordings["en"]
}
